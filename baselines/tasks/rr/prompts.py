"""RR's harness documents: one per sentence, the roles with a short description each, then `window` sentences
of context on each side, the target sentence marked."""
from __future__ import annotations

from baselines.tasks.rr.data import Document, model_input

DEFAULT_WINDOW = 2

ROLE_DESCRIPTIONS = {
    "PREAMBLE": "the opening of the judgment: court, case number, parties, counsel, judges",
    "FAC": "facts: the events that led to the dispute and the history of the proceedings",
    "RLC": "ruling by a lower court: what a lower court or tribunal decided, and why",
    "ISSUE": "the legal questions the court has to decide",
    "ARG_PETITIONER": "arguments of the petitioner, appellant or their counsel",
    "ARG_RESPONDENT": "arguments of the respondent or their counsel",
    "ANALYSIS": "the court's discussion of the facts, evidence, law and arguments",
    "STA": "statute: the text or content of a statute, rule or provision the court cites",
    "PRE_RELIED": "a precedent the court relies on or follows",
    "PRE_NOT_RELIED": "a precedent the court cites but does not rely on (distinguished or rejected)",
    "RATIO": "ratio decidendi: the principle or main reason on which the decision rests",
    "RPC": "ruling by the present court: its final decision or order",
    "NONE": "none of these roles (headings, page markers, stray text)",
}
RR_INTRO = ("Below are consecutive sentences of an Indian court judgment. Classify the rhetorical role of "
            "the sentence marked with >>> and <<<.")
RR_ASK = "Which rhetorical role does the marked sentence have? Answer with the role name only."


def continuation_openers() -> tuple[str, ...]:
    """Lines that open a new example in our RR prompt: where a generation that goes on writing the prompt stops
    answering (baselines.evaluation.reading.sections)."""
    return ("Question:", "Roles:", "Sentences:", "Sentence:", RR_INTRO.split(".")[0])


def role_lines(labels: tuple[str, ...]) -> str:
    """The roles to choose from, described ones in the order of a judgment, then any others."""
    known = [label for label in ROLE_DESCRIPTIONS if label in labels]
    others = sorted(label for label in labels if label not in ROLE_DESCRIPTIONS)
    return "\n".join([f"{label}: {ROLE_DESCRIPTIONS[label]}" for label in known] + others)


def rr_documents(doc: Document, window: int) -> list[dict]:
    """One document per sentence of a judgment, with `window` sentences of context on each side."""
    texts = [model_input(sentence.text) for sentence in doc.sentences]
    roles = role_lines(doc.labels)
    out = []
    for index, sentence in enumerate(doc.sentences):
        lines = []
        for k in range(max(0, index - window), min(len(texts), index + window + 1)):
            lines.append(f">>> {texts[k]} <<<" if k == index else texts[k])
        prompt = (f"{RR_INTRO}\n\nRoles:\n{roles}\n\nSentences:\n" + "\n".join(lines) + f"\n\n{RR_ASK}\nAnswer:")
        out.append({
            "id": sentence.id,
            "document": doc.id,
            "sentence_index": index,
            "labels": list(doc.labels),
            "numbering": "role names",
            "targets": [sentence.label] if sentence.label else [],
            "prompt": prompt,
        })
    return out
