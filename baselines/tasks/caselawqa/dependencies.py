"""What one CaselawQA answer says about another: the inputs of each task's stacked head, from the SCDB codebook.

A task listed here gets a stacked head (stacking.py) that reads, for the same opinion, the out-of-fold answer
distributions of its sources, the outer products of the pairs the codebook defines it from, the tags of the
readers that state it (reasons.py), and its own `linear` head's out-of-fold distribution. A source the model was
not trained on (`--subtasks`) is left out. The definitions (SCDB codebook, variables of the same names):

- decisionDirection is coded from the issue and from which side the decision favours: for most issues a
  decision for the criminal defendant, the union, the civil-rights claimant is liberal; and the Court's
  direction is the lower court's reversed when the petitioner wins. Hence issue area x party winning, party
  winning x the lower court's direction, issue area x the lower court's direction; and the disposition.
- lcDispositionDirection is the same reading of the decision under review: the Court's direction and which
  party won, by issue area; and both dispositions.
- declarationUncon is coded when the Court holds a law unconstitutional: the disposition, which party won,
  and the passages holding a law invalid with the kind of law they name.
- certReason is the reason the Court gives for granting certiorari ("case did not arise on cert" when it came
  on appeal, which jurisdiction codes): the grant passages and the conflicts they name.
- lcDisagreement is coded when a judge of the court below dissented: the passages of a division below.
- partyWinning follows from the disposition (reversed or vacated: the petitioner won), and the disposition
  from which party won and what the court below did; lcDisposition, what the court below did, is read beside
  this Court's disposition, which party won and the lower court's direction.
- precedentAlteration is coded when the majority says it overrules a precedent: the overruling passages.
- authorityDecision is the basis of the decision (constitutional, statutory, ...): a declaration of
  unconstitutionality, the issue area and the passages holding a law invalid.
- jurisdiction (certiorari, appeal, ...) mirrors certReason's "case did not arise on cert".
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Inputs:
    """The inputs of one task's stacked head, besides its own head's out-of-fold distribution."""

    sources: tuple[str, ...] = ()  # tasks whose out-of-fold answer distributions it reads
    crosses: tuple[tuple[str, str], ...] = ()  # pairs of sources (or the task itself) read as outer products
    readers: tuple[str, ...] = ()  # reasons.READERS read as tags

    def keep(self, groups: tuple[str, ...]) -> "Inputs":
        """These inputs with only the GROUPS named in `groups` (the others emptied)."""
        return Inputs(*(getattr(self, name) if name in groups else () for name in GROUPS))

    def present(self, trained: set[str]) -> "Inputs":
        """These inputs without the sources (and their crosses) of tasks not in `trained`."""
        sources = tuple(s for s in self.sources if s in trained)
        crosses = tuple((a, b) for a, b in self.crosses if a in sources and b in sources)
        return Inputs(sources, crosses, self.readers)


GROUPS = ("sources", "crosses", "readers")  # the kinds of input, the fields of Inputs in order

ISSUE, WINNER, LC_DIRECTION = "sc_issuearea", "sc_partywinning", "sc_lcdispositiondirection"
DIRECTION, DISPOSITION, LC_DISPOSITION = "sc_decisiondirection", "sc_casedisposition", "sc_lcdisposition"

DEPENDENCIES = {
    DIRECTION: Inputs(sources=(ISSUE, WINNER, LC_DIRECTION, DISPOSITION),
                      crosses=((ISSUE, WINNER), (WINNER, LC_DIRECTION), (ISSUE, LC_DIRECTION))),
    LC_DIRECTION: Inputs(sources=(ISSUE, WINNER, DIRECTION, LC_DISPOSITION, DISPOSITION),
                         crosses=((ISSUE, WINNER), (WINNER, DIRECTION), (ISSUE, DIRECTION))),
    "sc_declarationuncon": Inputs(sources=(DISPOSITION, WINNER), readers=("unconstitutional",)),
    "sc_certreason": Inputs(sources=("sc_jurisdiction",), readers=("cert_reason",)),
    "sc_lcdisagreement": Inputs(readers=("division_below",)),
    WINNER: Inputs(sources=(DISPOSITION,)),
    DISPOSITION: Inputs(sources=(WINNER, LC_DISPOSITION)),
    LC_DISPOSITION: Inputs(sources=(DISPOSITION, WINNER, LC_DIRECTION)),
    "sc_precedentalteration": Inputs(readers=("overruled",)),
    "sc_authoritydecision": Inputs(sources=("sc_declarationuncon", ISSUE), readers=("unconstitutional",)),
    "sc_jurisdiction": Inputs(sources=("sc_certreason",)),
}


def stacked_tasks(trained: set[str], groups: tuple[str, ...] = GROUPS,
                  roles: dict[str, str | None] | None = None) -> dict[str, Inputs]:
    """Task -> its present inputs of `groups`, for the trained tasks that are tasks of DEPENDENCIES (`roles`:
    task -> the known task it is, recognise.py; default: its name) and read something besides their own head (a
    source trained, or a reader). A source is the trained task that is that known task: the one of its name if
    there is one, else the first by name; a task whose name is known but whose content is not is none."""
    roles = {task: task for task in trained} if roles is None else roles
    present = {}
    for role, inputs in DEPENDENCIES.items():
        for task in sorted(t for t in trained if roles.get(t) == role):
            present[task] = _named(inputs, role, task, roles, trained).keep(groups).present(trained)
    return {task: inputs for task, inputs in present.items() if inputs.sources or inputs.readers}


def _named(inputs: Inputs, role: str, task: str, roles: dict, trained: set[str]) -> Inputs:
    """`inputs` (of the known task `role`) with each known task replaced by the trained task that is it (`task`
    for `role` itself); those no trained task is are left out."""
    def name(known: str) -> str | None:
        if known == role:
            return task
        if roles.get(known) == known and known in trained:
            return known
        return next((t for t in sorted(trained) if roles.get(t) == known), None)

    sources = tuple(n for n in map(name, inputs.sources) if n is not None)
    crosses = tuple((name(a), name(b)) for a, b in inputs.crosses if name(a) is not None and name(b) is not None)
    return Inputs(sources, crosses, inputs.readers)


def source_tasks(stacked: dict[str, Inputs]) -> list[str]:
    """Every task whose out-of-fold distribution some stacked head reads (its own included), sorted."""
    return sorted({name for task, inputs in stacked.items() for name in (task, *inputs.sources)})
