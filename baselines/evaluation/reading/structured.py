"""Structured answers at any depth: an answer key in JSON, XML or YAML written as text (`{"final_answer": {"letter":
"C"}}`, `<final_answer><letter>C</letter></final_answer>`, "final_answer:\\n  letter: C"), a list of per-option
verdicts (`[{"option": "C", "correct": true}, ...]`), or a tool call written as text whose arguments hold one
(`{"name": "submit", "arguments": "{\\"answer\\": \\"C\\"}"}`). Each document read commits to the choices its
answer keys name: one, or SEVERAL when its keys conflict. A key that holds no answer of the writer's (an example, a
rejected or runner-up choice, a schema) is not read, nor anything under it."""
from __future__ import annotations

import json
import re
from xml.etree import ElementTree

from baselines.evaluation.reading import forms
from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.forms import Commitment
from baselines.evaluation.reading.text import Text
from baselines.evaluation.reading.values import SEVERAL, value_at

ANSWER_KEYS = {"answer", "final_answer", "finalanswer", "final", "answer_letter", "letter", "choice", "selected",
               "selected_answer", "selected_option", "selection", "prediction", "predicted", "label", "option",
               "correct_answer", "correct_option", "best_answer", "pick", "verdict_answer"}
UNDER_ANSWER = ANSWER_KEYS | {"text", "value", "id", "key"}  # inside an answer object: {"answer": {"value": "C"}}
NOT_ANSWERS = {"example", "examples", "sample", "format", "schema", "template", "rejected", "eliminated", "excluded",
               "wrong", "incorrect", "runner_up", "runnerup", "second_choice", "alternative", "alternatives",
               "distractor", "distractors", "least_likely", "previous_answer", "draft", "options", "choices"}
ROW_LABELS = ("option", "letter", "choice", "label", "id", "key")  # a per-option verdict row names its choice by one
ROW_VERDICTS = ("correct", "is_correct", "verdict", "selected", "chosen", "status", "valid", "true", "assessment")
FAVOURABLE = {"true", "correct", "yes", "right", "selected", "chosen", "valid", "✓", "✔", "✅"}
MAX_DOCUMENTS = 64  # documents tried per text: a long text of braces is not parsed again at each one
_STARTS = re.compile(r"[{\[]|<(\w+)>|^(\w+):[ \t]*$", re.MULTILINE)
_DECODER = json.JSONDecoder(object_pairs_hook=lambda pairs: _merged(pairs))


def _merged(pairs: list[tuple[str, object]]) -> dict:
    """An object whose repeated keys keep every value, as a list: {"answer": "1", "answer": "4"} names two."""
    merged: dict = {}
    for key, value in pairs:
        merged[key] = [*merged[key], value] if isinstance(merged.get(key), _Repeated) else \
            _Repeated([merged[key], value]) if key in merged else value
    return merged


class _Repeated(list):
    """The values of a key written more than once."""


def tagged(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The `tagged` form: each structured document's commitment, and the flat tags and fields outside them
    (`forms.tagged`)."""
    documents = _documents(text, table)
    flat = [c for c in forms.tagged(text, table)
            if not any(start <= text.tokens[c.start].start < stop for start, stop, _ in documents)]
    return [commitment for _, _, commitment in documents if commitment is not None] + flat


def _documents(text: Text, table: ChoiceTable) -> list[tuple[int, int, Commitment | None]]:
    """(start, stop, commitment or None) of each structured document in the text (see the module docstring)."""
    found, end, tried = [], 0, 0
    for match in _STARTS.finditer(text.raw):
        if match.start() < end or tried >= MAX_DOCUMENTS:
            continue
        tried += 1
        document, stop = _document(text.raw, match)
        if document is None or not isinstance(document, (dict, list)):
            continue
        end = stop
        labels = {label for value in _answers(document) if (label := _label(text, value, table)) is not None}
        at = text.index_at(match.start())
        commitment = Commitment(labels.pop() if len(labels) == 1 else SEVERAL, "tagged", at, at, stop) \
            if labels else None
        found.append((match.start(), stop, commitment))
    return found


def _document(raw: str, match: re.Match) -> tuple[object, int]:
    """(the document starting at `match`, the character after it), or (None, 0)."""
    try:
        if match.group(1):  # XML
            close = raw.find(f"</{match.group(1)}>", match.end())
            return (_xml(ElementTree.fromstring(raw[match.start():close + len(match.group(1)) + 3])),
                    close + len(match.group(1)) + 3) if close >= 0 else (None, 0)
        if match.group(2):  # YAML: a key heading an indented block
            return _yaml(raw, match)
        return _DECODER.raw_decode(raw, match.start())
    except (ValueError, ElementTree.ParseError):
        return None, 0


def _xml(element) -> object:
    children = list(element)
    return {element.tag: {child.tag: _xml(child)[child.tag] for child in children} if children else
            (element.text or "").strip()}


def _yaml(raw: str, match: re.Match) -> tuple[object, int]:
    """A key heading a block of indented "key: value" lines (one level)."""
    block, stop = {}, match.end()
    for line in re.finditer(r"\n([ \t]+)([\w-]+):[ \t]*([^\n]*)", raw[match.end():]):
        if line.start() != stop - match.end():
            break
        block[line.group(2)] = line.group(3).strip().strip("\"'")
        stop = match.end() + line.end()
    return ({match.group(2): block}, stop) if block else (None, 0)


def _answers(node, under: bool = False):
    """The answer values of a document: under its answer keys, in its favourable verdict rows, in tool arguments."""
    if isinstance(node, str) and node.strip()[:1] in "{[":
        try:
            yield from _answers(json.loads(node), under)
        except ValueError:
            pass
    if isinstance(node, list):
        for item in node:
            yield from _answers(item, under)
    if not isinstance(node, dict):
        return
    keys = {str(key).casefold(): value for key, value in node.items()}
    verdict = next((keys[key] for key in ROW_VERDICTS if key in keys), None)
    name = next((keys[key] for key in ROW_LABELS if key in keys), None)
    if verdict is not None and isinstance(name, (str, int)) and not isinstance(name, bool):
        if str(verdict).strip().casefold() in FAVOURABLE:
            yield name
        return
    for key, value in keys.items():
        if key in NOT_ANSWERS:
            continue
        answer = key in (UNDER_ANSWER if under else ANSWER_KEYS)
        values = value if answer and isinstance(value, list) and all(_scalar(v) for v in value) else [value]
        if answer and all(_scalar(v) and not str(v).strip()[:1] in "{[" for v in values):
            yield from values
        else:
            yield from _answers(value, under or key in ANSWER_KEYS)


def _scalar(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _label(text: Text, value, table: ChoiceTable) -> str | None:
    """The label a value names: a label standing alone or first ("C", "(C)", "C) reversed"), or a choice's text."""
    value = Text(str(value).strip(), text.matcher)
    if not len(value):
        return None
    found = value_at(value, 0, table)
    return found[0] if found is not None else None
