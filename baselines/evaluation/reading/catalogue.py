"""The committing forms and the vetoes as data: each with what it is, examples it reads and refuses (on five
choices lettered A-E, whose texts are EXAMPLE_CHOICES), and what a sample records. The docs' table and the tests
read this catalogue; the order of FORMS is the precedence of the rule names a sample records when several forms
commit to the same choice."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from baselines.evaluation.reading import forms, label_lines, structured, verdicts


EXAMPLE_LABELS = ("A", "B", "C", "D", "E")
EXAMPLE_CHOICES = ("Federal agency", "Congress", "State agency", "Local government", "Private party")


@dataclass(frozen=True)
class Form:
    """One committing form: how the text commits, examples read (generation, label) and refused (generation, the
    rule recorded), and how it counts."""

    name: str
    find: Callable
    about: str
    reads: tuple[tuple[str, str], ...]
    refuses: tuple[tuple[str, str], ...]
    strict: bool  # counts under the strict reading: an explicit answer statement, or a bare label
    statement: bool  # stands in a generation cut off by its token limit
    final: bool = False  # declares itself final: decides between answers that differ


FORMS = (
    Form("whole", label_lines.whole, "the whole text is one label, with markup or after \"Answer\"/\"Option\"",
         (("C", "C"), ("(C)", "C"), ("**C**", "C"), ("Answer: c", "C"), ("Option C.", "C")),
         (("C?", "whole:questioned"),), strict=True, statement=True),
    Form("choice_text", label_lines.choice_text, "the whole text is one choice's text",
         (("State agency", "C"),), (), strict=False, statement=True),
    Form("final_answer", forms.final_answer, "a final-answer statement: \"The final answer is C\", \"**Final "
         "Answer**\" ending its line",
         (("The final answer is C", "C"), ("**Final Answer:** (C)", "C"), ("Final answer:\n\nC", "C"),
          ("The answer is B. Final answer: C", "C")),
         (("If the Court had reached the merits, the final answer would be C.", "final_answer:conditional"),
          ("The final answer is unlikely to be C.", None)), strict=True, statement=True, final=True),
    Form("tagged", structured.tagged, "an answer tag or field: `<answer>C</answer>`, `{\"answer\": \"C\"}`",
         (("<answer>C</answer>", "C"), ('{"answer": "D", "runner_up": "B"}', "D")), (), strict=True,
         statement=True, final=True),
    Form("boxed", forms.boxed, "the content of each `\\boxed{}` (two that differ name none)",
         (("Thus \\boxed{C}", "C"), ("So $\\boxed{\\text{(C)}}$.", "C")), (), strict=True, statement=True, final=True),
    Form("answer_is", forms.answer_is, "an answer statement whose own clause is not negated, doubted, questioned, "
         "conditional, ranked below another or attributed to someone else: \"The answer is C\", \"Answer: C\", "
         "\"The correct holding is C\", \"My best guess: C\"",
         (("The answer is C.", "C"), ("Answer: I think it is C", "C"), ("答案是 C。", "C"), ("Ответ: В", "C"), ("I'm not sure, but I think the answer is C.",
                                                                          "C"),
          ("The Court's holding is C.", "C"), ("Most likely answer: (C)", "C"), ("Most likely: C. Least likely: E.", "C")),
         (("The petitioner argues that the answer is C.", "answer_is:attributed"),
          ("My colleague thinks the answer is C.", "answer_is:attributed"),
          ("The answer is C?", "answer_is:questioned"), ("If the statute applied, the answer would be C.",
                                                    "answer_is:conditional"),
          ("The wrong answer is C.", "answer_is:qualified"), ("The second-best answer is C.", "answer_is:qualified"),
          ("I doubt the answer is C.", "answer_is:doubted"), ("The answer is not C.", None),
          ("The answer is C ❌", "answer_is:rejected"), ("The answer is C. Or is it? I'm unsure.", "answer_is:retracted"),
          ("In the petitioner's view the answer is C.", "answer_is:attributed"),
          ("The least likely answer is C.", "answer_is:qualified"), ("答案不是 C。", None),
          ("The answer could be C.", None)), strict=True, statement=True),
    Form("pick", forms.pick, "the writer's own choice: \"I choose C\", \"I'd go with C\", \"Leaning C\", the "
         "survivor of an elimination: \"Eliminating A, B, D and E leaves C\"",
         (("I choose C.", "C"), ("I'd go with C.", "C"), ("If I had to choose, I'd pick C.", "C"),
          ("Leaning C.", "C"), ("Eliminating A, B, D and E leaves C, which fits the record.", "C"),
          ("Only C remains.", "C")),
         (("I won't pick C.", None), ("Students often choose C.", None), ("Should I pick C?", "pick:questioned"),
          ("I'd pick C if the statute applied.", "pick:conditional")), strict=False, statement=False),
    Form("verdict", verdicts.verdict, "a favourable verdict on the choice with the writer as judge: \"C is correct\", "
         "\"C is the holding\", \"C: correct\", \"✓ C\", \"- [x] C\"",
         (("C is correct.", "C"), ("C is the correct answer.", "C"), ("✗ A\n✗ B\n✓ C\n✗ D\n✗ E", "C"),
          ("- [ ] A\n- [x] C", "C"), ("A: incorrect. C: correct.", "C"), ("C seems most plausible.", "C"),
          ("B is a close second, but C is the holding.", "C"), ("With A, B, D and E eliminated, C remains.", "C"),
          ("C is the only option left.", "C")),
         (("C is unpersuasive.", None), ("C is far from correct.", None), ("Is it true that C is correct?", "verdict:questioned"),
          ("The petitioner argues C is correct.", "verdict:attributed"), ("C might be correct.", None),
          ("C is correct only if the statute applied.", "verdict:conditional"),
          ("I don't think C is correct.", "verdict:doubted")), strict=False, statement=False),
    Form("ending", label_lines.ending, "the text ends with a sentence that is a label, after words that lead into "
         "an answer: \"... So C.\", \"Therefore, C.\", \"Probably C.\", \"That leaves C.\"",
         (("A and B are wrong. So C.", "C"), ("Probably C.", "C"), ("Therefore, C.", "C")),
         (("There is little support for C.", None), ("I would not rely on C.", None), ("So C?", "ending:questioned")),
         strict=False, statement=False),
    Form("leading", label_lines.leading, "the text opens with a sentence that is a label: \"C. The Court held ...\", "
         "\"C\\n\\nExplanation: ...\", \"Most likely C, since ...\"",
         (("C. The Court held that the claim was time-barred.", "C"), ("C\n\nA and B are incorrect.", "C"),
          ("Most likely C, since the Court remanded.", "C")),
         (("C: unpersuasive.", None), ("C? No.", "leading:questioned"), ("A) first\nB) second", None)),
         strict=False, statement=True),
)
BY_NAME = {form.name: form for form in FORMS}
STRICT = frozenset(form.name for form in FORMS if form.strict)
STATEMENTS = frozenset(form.name for form in FORMS if form.statement)
FINAL = frozenset(form.name for form in FORMS if form.final)


@dataclass(frozen=True)
class Veto:
    name: str
    about: str


VETOES = (
    Veto("questioned", "its sentence is a question: \"Answer: C?\", \"Is C correct?\""),
    Veto("conditional", "its sentence puts it under a condition (\"if\", \"unless\", \"assuming\", \"had the "
                        "Court ...\"); not a condition that forces the writer's choice (\"if I had to choose\") or a "
                        "concession (\"even if\")"),
    Veto("attributed", "someone else holds it: a reporting verb with another subject (\"the petitioner argues\", "
                       "\"my colleague thinks\"), \"according to\" someone, another's possessive (\"the lower "
                       "court's holding\")"),
    Veto("doubted", "its clause doubts or denies it before it is stated: \"I doubt\", \"perhaps\", \"I don't think\""),
    Veto("qualified", "the answer noun is qualified by no commitment (\"the wrong answer\", \"a tempting answer\"), "
                      "or the choice is ranked below another (\"the second-best answer\", \"C, a close second\")"),
    Veto("rejected", "after the choice is read, the text rejects that same choice: \"C is wrong\", \"C can be "
                     "ruled out\"; or a mark of rejection stands beside its label: \"C ❌\", \"✘ C\", \"C 👎\", "
                     "\"C (wrong)\""),
    Veto("retracted", "after the answer the text takes it back: \"Or is it? I'm unsure\", \"just kidding\", \"that "
                      "was an earlier draft\", \"[retracted]\""),
    Veto("several", "differing choices are committed to with nothing to say which is final, or the text goes on to "
                    "offer another as possible (\"but it could also be A\", \"both are defensible\"), or leaves an "
                    "alternative unfinished (\"A or\"), or a label stands with another choice's quoted text "
                    "('C (\"affirmed\")', affirmed being B)"),
    Veto("unconfirmed", "after its last answer the text announces a check of it (\"but let me check the other options "
                        "first\") and states no answer after"),
)
