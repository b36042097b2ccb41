"""The world's answers, as data: the answer markers of each language, each with examples it reads and refuses
(on five choices lettered A-E, as `catalogue.FORMS` carries them), the words of that language that take a marker
back (negation, condition, doubt), and the letters of other scripts that stand for A-E.

A marker is an answer noun ("答案", "Ответ", "respuesta") followed by a connector: a colon or dash, or one of the
language's copulas ("是", "es", "είναι"); a language written without an answer-final copula (Hindi) may put the
value right after its noun. The value is then read as an English answer statement's is (`values.value_at`): a
label standing right there, or nothing. The vetoes of the language are looked for in the marker's whole sentence
("答案不是 C", "정답은 C가 아닙니다", "Si ..., la réponse est C"), and the English vetoes apply as well. The verdict
a language writes right after a label ("C es la respuesta correcta", "Cが正解です") is a second row of data
(`AFTER_LABEL`), read by the `verdict` form with the same vetoes.

`fold` writes the text the reader reads: NFKC (full-width, mathematical alphanumerics, circled letters), the
enclosed letters NFKC leaves ("🅒"), zero-width characters inside a word removed (a joiner between two letters
makes them one word: no letter), a space between a CJK character and a Latin letter or digit ("答案是C" -> "答案是
C"), the CJK, Arabic and Devanagari stops as "." "," "?", and a lone capital of another script as the Latin
letter it stands for: by the order of its alphabet in a line of that script alone (Russian "Ответ: В" is C), by its
shape in a line of Latin script alone (a Cyrillic "С" in "The answer is С" is C), and in a line of both scripts or
of no other letters only where order and shape agree. Elsewhere it stands for no letter."""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass

from baselines.evaluation.reading.sections import plain_lines


@dataclass(frozen=True)
class Language:
    nouns: tuple[str, ...]  # answer nouns, longest first where one starts another
    copulas: tuple[str, ...]  # words between the noun and the value ("is")
    vetoes: tuple[str, ...]  # words that take the marker back anywhere in its sentence
    reads: tuple[tuple[str, str], ...]
    refuses: tuple[tuple[str, None], ...] = ()
    spaced: bool = True  # words are set apart by spaces (word boundaries apply)
    bare: bool = False  # the value may follow the noun with nothing between (SOV languages)
    after_label: tuple[str, ...] = ()  # what follows a label to say it is the answer ("es la respuesta correcta")


LANGUAGES = {
    "zh": Language(("正确答案", "最终答案", "最后答案", "正确选项", "答案", "选择", "选项", "选", "答"), ("是", "为", "應為", "应为", "應該是", "应该是"),
                   ("不是", "不", "非", "如果", "假如", "若", "除非", "可能", "也许", "或许", "吗", "排除", "原告", "被告", "上诉人", "法院认为"),
                   (("答案是 C。", "C"), ("答案：C", "C"), ("最终答案：C", "C"), ("选C。", "C")),
                   (("答案不是C。", None), ("如果法院适用该法规，答案是C。", None)), spaced=False, bare=True),
    "ja": Language(("正解", "答え", "解答", "回答"), ("は", "が"),
                   ("ではない", "ではありません", "じゃない", "もし", "かもしれ", "たぶん", "でしょうか", "か?", "原告", "被告"),
                   (("答えは C です。", "C"), ("正解：C", "C"), ("正解はCです。", "C")),
                   (("答えはCではありません。", None),), spaced=False),
    "ko": Language(("정답", "답변", "답"), ("은", "는", "이", "가"),
                   ("아닙니다", "아니", "않", "만약", "아마", "일지도", "까요", "원고", "피고"),
                   (("정답은 C입니다.", "C"), ("답: C", "C")), (("정답은 C가 아닙니다.", None),), spaced=False),
    "ru": Language(("правильный ответ", "окончательный ответ", "итоговый ответ", "ответ"), ("это", "будет", "—", "-"),
                   ("не", "если", "возможно", "может", "вероятно", "наверное", "бы", "истец", "ответчик", "заявитель"),
                   (("Ответ: C", "C"), ("Ответ: В", "C"), ("Правильный ответ — C.", "C")),
                   (("Ответ: не В", None), ("Если бы суд применил закон, ответ был бы C.", None))),
    "el": Language(("σωστή απάντηση", "τελική απάντηση", "απάντηση"), ("είναι",),
                   ("δεν", "όχι", "αν", "εάν", "ίσως", "μπορεί"),
                   (("Απάντηση: Γ", "C"), ("Η σωστή απάντηση είναι C.", "C")), (("Η απάντηση δεν είναι C.", None),)),
    "ar": Language(("الإجابة الصحيحة", "الإجابة النهائية", "الإجابة", "الجواب", "الاجابة"), ("هي", "هو"),
                   ("ليست", "ليس", "لا", "إذا", "اذا", "لو", "ربما", "قد", "المدعي"),
                   (("الإجابة: C", "C"), ("الإجابة الصحيحة هي C", "C")), (("الإجابة ليست C", None),)),
    "hi": Language(("सही उत्तर", "अंतिम उत्तर", "उत्तर", "जवाब"), ("है",),
                   ("नहीं", "न", "अगर", "यदि", "शायद", "संभवतः", "याचिकाकर्ता"),
                   (("उत्तर: C", "C"), ("सही उत्तर C है।", "C")), (("उत्तर C नहीं है।", None),), bare=True),
    "es": Language(("respuesta correcta", "respuesta final", "respuesta"), ("es",),
                   ("no", "si", "quizás", "quizá", "tal vez", "posiblemente", "puede", "a menos que", "salvo que", "excepto si",
                    "demandante", "demandado", "recurrente"),
                   (("La respuesta es C.", "C"), ("Respuesta correcta: C", "C")),
                   (("La respuesta no es C.", None), ("Respuesta: C, a menos que sea D.", None))),
    "fr": Language(("bonne réponse", "réponse correcte", "réponse finale", "réponse"), ("est",),
                   ("ne", "pas", "si", "peut-être", "probablement", "pourrait", "à moins", "sauf si", "requérant", "demandeur"),
                   (("La réponse est C.", "C"), ("Réponse : C", "C")), (("Si la loi s'appliquait, la réponse est C.", None),)),
    "de": Language(("richtige antwort", "endgültige antwort", "antwort", "lösung"), ("ist", "lautet"),
                   ("nicht", "kein", "keine", "wenn", "falls", "vielleicht", "möglicherweise", "eventuell", "es sei denn", "außer wenn",
                    "sofern", "kläger", "beklagte"),
                   (("Die Antwort ist C.", "C"), ("Antwort: C", "C"), ("Die richtige Antwort lautet C.", "C")),
                   (("Die Antwort ist nicht C.", None), ("Antwort: C, es sei denn, es ist D.", None))),
    "pt": Language(("resposta correta", "resposta final", "resposta"), ("é", "seria"),
                   ("não", "se", "talvez", "possivelmente", "pode", "a menos que", "salvo se", "exceto se", "autor", "réu"),
                   (("A resposta é C.", "C"), ("Resposta: C", "C")), (("A resposta não é C.", None),)),
    "it": Language(("risposta corretta", "risposta finale", "risposta"), ("è",),
                   ("non", "se", "forse", "probabilmente", "potrebbe", "a meno che", "salvo che", "ricorrente", "attore"),
                   (("La risposta è C.", "C"), ("Risposta: C", "C")), (("Forse la risposta è C?", None),)),
    "nl": Language(("juiste antwoord", "antwoord"), ("is",), ("niet", "als", "misschien", "tenzij"),
                   (("Het antwoord is C.", "C"),), (("Het antwoord is C, tenzij D bedoeld is.", None),)),
    "tr": Language(("doğru cevap", "cevap", "yanıt"), (), ("değil", "eğer", "belki"), (("Cevap: C", "C"),)),
    "pl": Language(("poprawna odpowiedź", "odpowiedź"), ("to",), ("nie", "jeśli", "jeżeli", "może", "chyba że", "o ile"),
                   (("Odpowiedź: C", "C"),), (("Odpowiedź: C, chyba że chodzi o D.", None),)),
    "vi": Language(("đáp án đúng", "đáp án", "câu trả lời"), ("là",), ("không", "nếu", "có thể", "trừ khi"),
                   (("Đáp án: C", "C"),)),
}

# The verdict each language writes right after a label ("C es la respuesta correcta", "选项C是正确答案", "Cが正解です"),
# with examples it reads and refuses; the language's vetoes apply in the verdict's sentence, as to its markers.
AFTER_LABEL = {
    "zh": (("是正确答案", "是正确的答案", "是正确选项", "是最佳答案", "是最终答案", "是答案", "是正确的", "是对的", "正确"),
           (("选项C是正确答案。", "C"), ("C 是正确的。", "C")), (("C不是正确答案。", None), ("A或C是正确答案。", None))),
    "ja": (("が正解です", "が正解だ", "が正解", "が正しいです", "が正しい", "が答えです", "が答え"),
           (("選択肢Cが正解です。", "C"),), (("Cが正解かもしれません。", None),)),
    "ko": (("가 정답입니다", "가 정답이다", "가 정답", "이 정답입니다", "이 정답", "가 맞습니다", "가 옳습니다"),
           (("C가 정답입니다.", "C"),), (("아마 C가 정답입니다.", None),)),
    "ru": (("— правильный ответ", "- правильный ответ", "— верный ответ", "- верный ответ", "является правильным ответом",
            "является верным ответом", "является правильным", "является верным"),
           (("Вариант C — правильный ответ.", "C"), ("Вариант В является правильным ответом.", "C")),
           (("Вариант C не является правильным ответом.", None),)),
    "el": (("είναι η σωστή απάντηση", "είναι η απάντηση", "είναι σωστή", "είναι σωστό"),
           (("Η επιλογή C είναι η σωστή απάντηση.", "C"),), (("Ίσως η C είναι η σωστή απάντηση.", None),)),
    "ar": (("هي الإجابة الصحيحة", "هو الجواب الصحيح", "هي الإجابة", "هو الجواب"),
           (("C هي الإجابة الصحيحة", "C"),), (("ربما C هي الإجابة الصحيحة", None),)),
    "hi": (("सही उत्तर है", "सही जवाब है", "सही है"), (("विकल्प C सही उत्तर है।", "C"),), (("शायद C सही उत्तर है।", None),)),
    "es": (("es la respuesta correcta", "es la opción correcta", "es la respuesta", "es la correcta", "es correcta"),
           (("La opción C es la respuesta correcta.", "C"),), (("C no es la respuesta correcta.", None),
                                                               ("Si el tribunal aplicara la ley, C es la correcta.", None))),
    "fr": (("est la bonne réponse", "est la réponse correcte", "est la réponse", "est la bonne", "est correcte"),
           (("L'option C est la bonne réponse.", "C"),), (("C n'est pas la bonne réponse.", None),)),
    "de": (("ist die richtige Antwort", "ist die korrekte Antwort", "ist die Antwort", "ist die richtige", "ist richtig",
            "ist korrekt"), (("Die Option C ist die richtige Antwort.", "C"),), (("C ist nicht die richtige Antwort.", None),)),
    "pt": (("é a resposta correta", "é a opção correta", "é a resposta", "é a correta", "está correta"),
           (("A opção C é a resposta correta.", "C"),), (("Talvez C é a resposta correta.", None),)),
    "it": (("è la risposta corretta", "è l'opzione corretta", "è la risposta", "è quella corretta", "è corretta"),
           (("L'opzione C è la risposta corretta.", "C"),), (("C non è la risposta corretta.", None),)),
    "nl": (("is het juiste antwoord", "is het antwoord", "is juist"), (("Optie C is het juiste antwoord.", "C"),),
           (("C is niet het juiste antwoord.", None),)),
    "tr": (("doğru cevaptır", "doğru cevap", "doğru yanıttır", "doğrudur"), (("Bence C doğru cevaptır.", "C"),),
           (("C doğru cevap değil.", None),)),
    "pl": (("to poprawna odpowiedź", "jest poprawną odpowiedzią", "jest poprawna", "jest prawidłowa"),
           (("Odpowiedź C jest poprawna.", "C"),), (("C nie jest poprawna.", None),)),
    "vi": (("là đáp án đúng", "là câu trả lời đúng", "là đáp án"), (("Phương án C là đáp án đúng.", "C"),),
           (("C không là đáp án đúng.", None),)),
}
LANGUAGES = {name: dataclasses.replace(language, after_label=AFTER_LABEL[name][0], reads=language.reads + AFTER_LABEL[name][1],
                                       refuses=language.refuses + AFTER_LABEL[name][2]) if name in AFTER_LABEL else language
             for name, language in LANGUAGES.items()}

# "or" and "and" in other languages: a label joined to another by one names several ("C 或 D", "C или D")
CONNECTORS = {"或", "或者", "和", "及", "与", "與", "と", "か", "または", "또는", "와", "과", "или", "и", "либо", "ή", "και",
              "أو", "و", "या", "और", "o", "y", "ou", "et", "oder", "und", "of", "en", "lub", "ya", "veya", "hoặc", "và"}
# letters of other scripts: by the order of the alphabet (A-E), and the capitals shaped like a Latin letter
ORDER = {"cyrillic": "АБВГД", "greek": "ΑΒΓΔΕ"}
SHAPES = {"cyrillic": dict(zip("АВСЕНКМОРТХ", "ABCEHKMOPTX")), "greek": dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX"))}
ENCLOSED = ((0x1F130, 26), (0x1F150, 26), (0x1F170, 26), (0x1F1E6, 26))  # squared, negative circled/squared, regional
STOPS = str.maketrans({"。": ". ", "．": ".", "、": ", ", "؟": "?", "،": ",", "।": ".", "॥": ".", "\ufe0f": None,
                       "\ufe0e": None})
_JOINERS = re.compile(r"(?<=\w)[\u200b\u200c\u200d\u2060\ufeff]+(?=[a-z\u00e0-\u024f])|(?<=\w)[\u200c\u200d\u2060]+(?=\w)")
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_LATIN = re.compile(rf"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])")
_LONE = re.compile(r"(?<![^\W\d_])[\u0391-\u03a9\u0410-\u042f](?![^\W\d_])")
_LINE = re.compile(r"[^\n]*")
_OTHER_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")
QUESTION_MARKS = {"greek": ";"}  # the question mark of a script, in a line written in it


def fold(raw: str) -> str:
    """The text the reader reads (see the module docstring), its line breaks and spaces as `plain_lines` writes
    them; ASCII text is returned as it is."""
    if raw.isascii():
        return plain_lines(raw)
    raw = plain_lines(_JOINERS.sub("", raw))
    raw = "".join(_enclosed(char) for char in raw) if any(ord(char) > 0x1F000 for char in raw) else raw
    raw = _CJK_LATIN.sub(" ", unicodedata.normalize("NFKC", raw).translate(STOPS))
    return _LINE.sub(_letters_of_line, raw) if _OTHER_SCRIPT.search(raw) else raw


def _letters_of_line(line: re.Match) -> str:
    """A line with its lone capitals of another script as Latin letters, and the question mark of its script."""
    text = line.group()
    if not _OTHER_SCRIPT.search(text):
        return text
    counts = {script: sum(1 for c in text if c.isalpha() and unicodedata.name(c, "").startswith(script.upper()))
              for script in ORDER}
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    for script, mark in QUESTION_MARKS.items():
        text = text.replace(mark, "?") if counts[script] > latin else text
    return _LONE.sub(lambda m: _letter(m.group(), counts, latin), text)


def _enclosed(char: str) -> str:
    code = ord(char)
    return next((chr(ord("A") + code - start) for start, size in ENCLOSED if start <= code < start + size), char)


def _letter(char: str, counts: dict[str, int], latin: int) -> str:
    """The Latin letter a lone capital of another script stands for in its line, or the capital itself."""
    script = "greek" if "\u0391" <= char <= "\u03a9" else "cyrillic"
    own = counts[script] - 1
    by_order = "ABCDE"[ORDER[script].index(char)] if char in ORDER[script] else None
    by_shape = SHAPES[script].get(char)
    if own and not latin:  # a line of its script: by order
        return by_order or char
    if latin and not own:  # a line of Latin script: by shape
        return by_shape or char
    return by_order if by_order is not None and by_order == by_shape else char


def _marker(language: Language) -> str:
    nouns = "|".join(re.escape(noun) for noun in language.nouns)
    copulas = "|".join(re.escape(copula) for copula in language.copulas)
    edge = r"(?<![^\W\d_])" if language.spaced else ""
    connector = r"[ \t]*[:=—–-]+" + (rf"|[ \t]*(?:{copulas})" if copulas else "") + (r"|(?=[ \t])" if language.bare else "")
    after = r"(?![^\W\d_])" if language.spaced else r"(?=[\s:*(\[\"'«A-Za-z0-9]|$)"
    return rf"{edge}(?:{nouns})(?:{connector}){after}"


MARKERS = re.compile("|".join(f"(?P<{name}>{_marker(language)})" for name, language in LANGUAGES.items()),
                     re.IGNORECASE | re.MULTILINE)
VETOES = {name: re.compile("|".join((r"(?<![^\W\d_])" if language.spaced else "") + re.escape(word)
                                    + (r"(?![^\W\d_])" if language.spaced else "") for word in language.vetoes),
                           re.IGNORECASE) for name, language in LANGUAGES.items()}


def _after_label(language: Language) -> str:
    """A verdict of the language right after a label (past its closing marks), to the end of a word."""
    phrases = "|".join(re.escape(phrase) for phrase in sorted(language.after_label, key=len, reverse=True))
    after = r"(?![^\W\d_])" if language.spaced else r"(?=[\s.,;:!?)」』]|$)"
    return rf"[ \t]*[)\]*_`'\"]*[ \t]*(?:{phrases}){after}"


AFTER_LABEL_VERDICTS = {name: re.compile(_after_label(language), re.IGNORECASE) for name, language in LANGUAGES.items()
                        if language.after_label}
