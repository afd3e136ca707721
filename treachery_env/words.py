"""English for messages built from names that vary (a type's, a card type's, a role's, a count):
the indefinite article each takes, so that no message reads "not a int" or "a 8-player game"."""

from __future__ import annotations

__all__ = ["with_article"]


def with_article(word: object) -> str:
    """``word`` with its indefinite article: ``an int``, ``a list``, ``an OptionView``, ``an
    assassin``, ``an 8-player``, ``an 11-player``, ``a 12-player``, ``an 'entity'``.

    The article follows the first letter (a vowel takes ``an``), past any quote or backtick; a
    number takes it as it is spoken (``an`` for 8, 11 and 18, and 80-89, 800..., 11,000...).
    Words whose first vowel sounds as a consonant (``unit``, ``one``) are not among the names
    these messages use.
    """
    text = str(word)
    head = text.lstrip("'\"`")
    digits = head[:len(head) - len(head.lstrip("0123456789"))]
    if digits:
        an = digits[0] == "8" or (digits[:2] in ("11", "18") and len(digits) % 3 == 2)
    else:
        an = head[:1].lower() in ("a", "e", "i", "o", "u")
    return f"{'an' if an else 'a'} {text}"
