"""The letters of other scripts drawn like Latin ones, read as those Latin letters: the skeleton (Unicode TR39)
that the overlap check compares texts by, so a training text with its Latin "a" swapped for Cyrillic "а", or
typed in full-width letters, is still found.

`skeleton(text)` is NFKC (which already folds full-width forms, mathematical letters, ligatures and the like to
their plain letters), then the table below. The table is our own, not a library's: the one maintained skeleton
implementation (ICU's SpoofChecker, through pyicu) builds from source against the system's ICU, whose version,
and so whose hashes, differ between machines; the pure-Python packages on PyPI either detect confusables without
mapping them or expand every alternative. It holds the Cyrillic and Greek letters (and a few Latin-script
look-alikes) whose TR39 confusable prototype is a single Latin letter: the substitutions contamination studies
make. Text that is ASCII already is returned as it is, so its digests are unchanged.
"""
from __future__ import annotations

import unicodedata

_PAIRS = {
    # Cyrillic
    "а": "a", "в": "B", "е": "e", "ё": "ë", "к": "k", "м": "M", "н": "H", "о": "o", "р": "p", "с": "c", "т": "T",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "ï", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "ү": "y", "ѡ": "w", "ԍ": "G", "ɡ": "g", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O",
    "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ї": "Ï", "Ј": "J", "Ԛ": "Q", "Ԝ": "W",
    "Ү": "Y", "Ӏ": "I", "Һ": "h", "Ԁ": "d", "Ь": "b", "Ꮯ": "C",
    # Greek
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "υ": "u", "ι": "i", "κ": "k", "ϲ": "c", "ϳ": "j", "τ": "t", "χ": "x",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    # Latin-script look-alikes
    "ı": "i", "ɑ": "a", "ɩ": "i", "ʋ": "u", "ɪ": "i", "ʟ": "l", "ɴ": "n", "ʀ": "r", "ꜱ": "s", "ᴄ": "c", "ᴏ": "o",
    "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ᴢ": "z", "ℓ": "l",
}
_TABLE = str.maketrans(_PAIRS)


def skeleton(text: str) -> str:
    """`text` with every character read as the Latin letter it is drawn like (NFKC, then the table)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).translate(_TABLE)
