"""Choice names as they are written in opinions: aliases for the choices of the CaselawQA entity tasks.

Aliases come from the choice texts in tasks.json plus two curated tables kept as data with their sources
(tables/states.csv: state names and abbreviations; tables/circuits.csv: the federal courts of appeals).
A Matcher compiles a task's aliases into one regular expression and counts each choice's mentions.
"""
from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import numpy as np

TABLES = Path(__file__).parent / "tables"
STATE_TASKS = ("sc_petitionerstate", "sc_respondentstate", "sc_adminactionstate", "sc_caseoriginstate",
               "sc_casesourcestate")
COURT_TASKS = ("sc_casesource", "sc_caseorigin")
AGENCY_TASKS = ("sc_adminaction",)
ENTITY_TASKS = STATE_TASKS + COURT_TASKS + AGENCY_TASKS
N_FEATURES = 6  # log1p mentions: whole, first 3,000 chars, near "Court"; is most mentioned: whole, first; share
OPENING_CHARS = 3000
NEAR_COURT = 40  # "Court" within this many characters of a mention

STATE_CHOICE_SKIP = {"United States", "Interstate Compact", "Indian", "Dakota"}
UNSAFE_ABBREVIATIONS = {"N.D.", "S.D.", "Or.", "Me.", "Ind.", "Miss.", "Ala.", "Mass."}  # districts, common words
DIRECTIONS = {"Northern": "N", "Southern": "S", "Eastern": "E", "Western": "W", "Middle": "M", "Central": "C"}
DISTRICT_CHOICE = re.compile(r"^(.*?) (Northern|Southern|Eastern|Western|Middle|Central)? ?U\.S\. District Court$")
AGENCY_SKIP = {"State Agency", "Unidentifiable", "NO Admin Action"}
TITLE_WORDS = ("Department", "Secretary", "Commissioner", "Director", "Administrator", "Collector")
STOP_WORDS = {"of", "and", "the", "or", "for", "on", "to", "in", "a", "an", "including", "its", "U.S."}


def family(task: str) -> str:
    """The mention model a task shares: the five state tasks pool theirs."""
    return "state" if task in STATE_TASKS else task


@cache
def table(name: str) -> list[dict]:
    """Rows of a curated table (lines starting with '#' are its header comment: contents and sources)."""
    lines = [line for line in (TABLES / name).read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return list(csv.DictReader(lines))


def _ordinal_suffix(n: int) -> str:
    return "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def state_aliases(choices: list[str]) -> list[tuple[int, list[str]]]:
    """(choice index, aliases) for the state choices: the name, "State of X", the Bluebook abbreviation."""
    by_name = {row["name"]: row for row in table("states.csv")}
    out = []
    for i, choice in enumerate(choices):
        if choice in STATE_CHOICE_SKIP:
            continue
        aliases = [choice, f"State of {choice}"]
        row = by_name.get(choice)
        if row and row["bluebook"].endswith(".") and row["bluebook"] not in UNSAFE_ABBREVIATIONS:
            aliases.append(row["bluebook"])
        if choice == "District of Columbia":
            aliases += ["Washington, D.C.", "Washington, D. C.", "D.C.", "D. C."]
        out.append((i, aliases))
    return out


def circuit_aliases(row: dict) -> list[str]:
    """A court of appeals in prose, Bluebook and U.S. Reports forms ("Ninth Circuit", "9th Cir.", "CA9")."""
    aliases = []
    if row["ordinal"]:
        n = int(row["number"])
        aliases += [f"{row['ordinal']} Circuit", f"{n}{_ordinal_suffix(n)} Cir.", f"CA{n}", f"C.A. {n}", f"C. A. {n}",
                    f"C.A.{n}"]
    return aliases + [alias for alias in row["aliases"].split("|") if alias]


def district_aliases(state: str, direction: str, row: dict) -> list[str]:
    """A federal district court in prose, Bluebook and reporter forms ("N.D. Cal.", "(ND Cal. 1990)", "SDNY")."""
    if direction:
        letter = DIRECTIONS[direction]
        aliases = [f"{direction} District of {state}", f"{letter}.D. {row['bluebook']}",
                   f"{letter}. D. {row['bluebook']}", f"{letter}D {row['reporter']}"]
        return aliases + ([f"{letter}DNY", f"{letter}.D.N.Y."] if state == "New York" else [])
    aliases = [f"District Court for the District of {state}", f"D. {row['bluebook']}"]
    if state == "District of Columbia":
        return aliases + ["D.D.C.", "DDC", "D. D. C."]
    return aliases + [f"D. {row['reporter']}"]


def state_court_aliases(choice: str, names: list[str]) -> list[str]:
    """The state courts grouped under one choice ("State Supreme Court", ...), named for every state."""
    if choice == "State Supreme Court":
        return ([f"Supreme Court of {n}" for n in names] + [f"{n} Supreme Court" for n in names] +
                ["Supreme Judicial Court", "State Supreme Court", "Court of Appeals of New York",
                 "New York Court of Appeals", "Court of Criminal Appeals of Texas", "Texas Court of Criminal Appeals"])
    if choice == "State Appellate Court":
        others = [n for n in names if n != "New York"]
        return ([f"{n} Court of Appeals" for n in others] + [f"Court of Appeals of {n}" for n in others] +
                ["Appellate Division", "Appellate Court of Illinois", "Superior Court of Pennsylvania",
                 "Court of Appeal of California", "California Court of Appeal", "state appellate court",
                 "intermediate appellate court"])
    if choice == "State Trial Court":
        return ["Superior Court", "County Court", "state trial court", "Circuit Court of", "District Court of"]
    return []


FEDERAL_COURTS = {  # choice text -> how opinions name that court
    "U.S. Tax Court": ["Tax Court"],
    "U.S. Court of Claims, Court of Federal Claims": ["Court of Federal Claims", "Court of Claims", "Claims Court"],
    "U.S. Court of International Trade": ["Court of International Trade"],
    "Bankruptcy Court": ["Bankruptcy Court"],
    "U.S. Court of Military Appeals, renamed as Court of Appeals for the Armed Forces":
        ["Court of Appeals for the Armed Forces", "Court of Military Appeals"],
    "District Of Columbia U.S. District Court": ["District Court for the District of Columbia", "D.D.C.", "DDC",
                                                 "D. D. C."],
}


def court_aliases(choices: list[str]) -> list[tuple[int, list[str]]]:
    """(choice index, aliases) for the courts of sc_casesource / sc_caseorigin; each alias names one choice."""
    states = {row["name"]: row for row in table("states.csv")}
    names = sorted(states, key=len, reverse=True)
    circuits = {row["choice"]: row for row in table("circuits.csv")}
    out, seen = [], set()
    for i, choice in enumerate(choices):
        aliases = circuit_aliases(circuits[choice]) if choice in circuits else []
        district = DISTRICT_CHOICE.match(choice)
        if district and district.group(1) in states:
            aliases += district_aliases(district.group(1), district.group(2) or "", states[district.group(1)])
        aliases += state_court_aliases(choice, names) + FEDERAL_COURTS.get(choice, [])
        aliases = [a for a in aliases if a not in seen]
        seen.update(aliases)
        if aliases:
            out.append((i, aliases))
    return out


def agency_aliases(choices: list[str]) -> list[tuple[int, list[str]]]:
    """(choice index, aliases) for federal agencies: the name's parts, their acronyms, "Department of X"."""
    out, seen = [], set()
    for i, choice in enumerate(choices):
        if choice in AGENCY_SKIP:
            continue
        aliases = []
        base = re.sub(r"\(.*?\)", "", choice)
        for part in (p.strip() for p in re.split(r",| or ", base)):
            if len(part) >= 8 and part[0].isupper() and not part.startswith(TITLE_WORDS):
                aliases.append(part)
            words = [w for w in part.split() if w not in STOP_WORDS]
            if len(words) >= 3 and all(w[0].isupper() for w in words):
                aliases.append("".join(w[0] for w in words))
        department = re.match(r"Department or Secretary of (the )?(.*)$", base.strip())
        if department:
            name = f"{department.group(1) or ''}{department.group(2)}"
            aliases += [f"Department of {name}", f"Secretary of {name}"]
        aliases = [a for a in dict.fromkeys(aliases) if a not in seen]
        seen.update(aliases)
        if aliases:
            out.append((i, aliases))
    return out


def task_aliases(task: str, choices: list[str]) -> list[tuple[int, list[str]]]:
    """(choice index, aliases) of an entity task's choices; none for other tasks."""
    if task in STATE_TASKS:
        return state_aliases(choices)
    if task in COURT_TASKS:
        return court_aliases(choices)
    if task in AGENCY_TASKS:
        return agency_aliases(choices)
    return []


class Matcher:
    """A task's aliases compiled into one regular expression (a character trie); alias -> choice index."""

    def __init__(self, task: str, choices: list[str]):
        self.n_choices = len(choices)
        pairs = task_aliases(task, choices)
        self.choice_of: dict[str, int] = {}
        for i, aliases in pairs:
            for alias in aliases:
                self.choice_of.setdefault(_spaces(alias), i)
        self.has_alias = np.zeros(self.n_choices, dtype=bool)
        self.has_alias[[i for i, _ in pairs]] = True
        keys = sorted(self.choice_of, key=len, reverse=True)
        self.pattern = re.compile(rf"(?<![A-Za-z])(?:{trie_pattern(keys)})(?![A-Za-z])") if keys else None

    def counts(self, text: str) -> np.ndarray:
        """(n_choices, 3) mentions of each choice: whole opinion, its opening, next to the word "Court"."""
        out = np.zeros((self.n_choices, 3), dtype=np.float32)
        for match in self.pattern.finditer(text) if self.pattern else ():
            i = self.choice_of.get(_spaces(match.group(0)))
            if i is None:
                continue
            out[i, 0] += 1
            out[i, 1] += match.start() < OPENING_CHARS
            out[i, 2] += "Court" in text[max(0, match.start() - NEAR_COURT): match.end() + NEAR_COURT]
        return out

    def features(self, text: str) -> np.ndarray:
        """(n_choices, N_FEATURES) mention features of each choice in one opinion."""
        return mention_features(self.counts(text))


def mention_features(counts: np.ndarray) -> np.ndarray:
    """Log counts, whether the choice is the most mentioned (whole, opening), and its share of all mentions."""
    out = np.zeros((len(counts), N_FEATURES), dtype=np.float32)
    out[:, :3] = np.log1p(counts)
    for column, source in ((3, 0), (4, 1)):
        top = counts[:, source].max() if len(counts) else 0
        if top > 0:
            out[counts[:, source] == top, column] = 1
    total = counts[:, 0].sum()
    if total:
        out[:, 5] = counts[:, 0] / total
    return out


def _spaces(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def trie_pattern(keys: list[str]) -> str:
    """An alternation of `keys` factored as a character trie (fast to match; longest alias first); a space in a
    key matches any run of whitespace."""
    root: dict = {}
    for key in keys:
        node = root
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        branches = [(r"\s+" if char == " " else re.escape(char)) + emit(node[char])
                    for char in sorted(k for k in node if k)]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
        return body + ("?" if ends else "")

    return emit(root)
