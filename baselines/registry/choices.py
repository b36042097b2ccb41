"""The hooks of benchmarks whose records are the shared multiple-choice ChoiceItem (core.records)."""
from __future__ import annotations

from baselines.core.records import choice_identities, choice_text
from baselines.registry.capabilities import Contents


def choice_references(records) -> list:
    """References of multiple-choice records (`record.reference()` each): the usual `Task.references`."""
    return [record.reference() for record in records]


def choice_contents(name: str) -> Contents:
    """The Contents of multiple-choice records (core.records.ChoiceItem): one unit each, the text it is about (its
    context, else its question), which is also its document; `name`, what that text is called ("questions")."""
    return Contents(units=lambda item: [choice_text(item)], document=choice_text, identities=choice_identities,
                    unit_name=name, document_name=name)
