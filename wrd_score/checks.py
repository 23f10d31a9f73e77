"""Input checks: the one place where an argument is held to its type and range, for every surface.

The library's functions, ``Options``, the evaluate module, the command line, ``wrdscore validate``'s specs and
the app's API all check their inputs here, so the same wrong value gets the same one-line message wherever it
comes in: texts (:func:`check_texts`), references (:func:`read_references`, :func:`check_references`), integers
(:func:`check_int`), numbers (:func:`check_number`), booleans (:func:`check_bool`), options objects
(:func:`check_instance`) and values or names drawn from a known set (:func:`check_choice`, :func:`check_names`,
whose one message suggests the closest known value).

Lists are checked in one pass at C speed (``set(map(type, ...))``, ``chain.from_iterable``): 50,000 method-name
pairs are checked in milliseconds, where a per-item ``isinstance`` against ``typing.Mapping`` took half a second
(``python benchmarks/speed.py``, the "checks" row).  Floor 1: this module imports nothing of the package.

>>> check_choice("weights", "nrom", ("norm", "idf"))
Traceback (most recent call last):
...
ValueError: weights must be one of ['norm', 'idf'], got 'nrom'; did you mean 'norm'?
>>> check_int("batch_size", 0)
Traceback (most recent call last):
...
ValueError: batch_size must be a positive integer, got 0
"""
from __future__ import annotations

import difflib
import math
import numbers
import re
from collections.abc import Mapping, Set
from itertools import chain
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

__all__ = ["InputTypeError", "unknown_message", "close_match_hint", "check_choice", "check_names", "check_needs",
           "needed_or_default", "check_instance", "check_int", "check_number", "check_bool", "check_text",
           "check_texts", "check_pair", "read_references", "reference_lists", "iter_reference_lists",
           "check_references", "groups_of", "without_surrogates", "refuse_meta", "one_number"]


# ------------------------------------------------------------------------------------------- known sets
def unknown_message(name: str, value: Any, allowed: Iterable[Any]) -> str:
    """The one message for a value (or an option's name) outside its known set, with the closest known
    one when there is a close one (:func:`difflib.get_close_matches`).

    >>> unknown_message("option", "varient", ["variant", "weights"])
    "option must be one of ['variant', 'weights'], got 'varient'; did you mean 'variant'?"
    """
    allowed = list(allowed)
    return f"{name} must be one of {allowed}, got {_short(value)}{close_match_hint(value, allowed)}"


def close_match_hint(value: Any, known: Iterable[Any]) -> str:
    """``"; did you mean 'x'?"`` for the known value closest to ``value`` (:func:`difflib.get_close_matches`), or "".

    >>> close_match_hint("--varient", ["--variant", "--weights"])
    "; did you mean '--variant'?"
    """
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, [k for k in known if isinstance(k, str)], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """``value`` if it is one of ``allowed``, else a ``ValueError`` with :func:`unknown_message`."""
    allowed = tuple(allowed)
    try:
        if value in allowed:
            return value
    except TypeError:  # an unhashable or incomparable value is no choice either
        pass
    raise ValueError(unknown_message(name, value, allowed))


def check_names(given: Iterable[str], known: Iterable[str], what: str = "option") -> None:
    """Refuse a keyword name that is not ``known`` (a ``TypeError``, as Python's own for an unexpected
    keyword), with :func:`unknown_message`: library options, evaluate's ``compute`` keywords, the metrics'
    options, ``wrdscore validate``'s specs.

    >>> check_names(["layer", "varaint"], ["variant", "layer"])
    Traceback (most recent call last):
    ...
    TypeError: option must be one of ['variant', 'layer'], got 'varaint'; did you mean 'variant'?
    """
    known = list(known)
    names = set(known)
    for name in given:
        if name not in names:
            raise TypeError(unknown_message(what, name, known))


def check_needs(given: Iterable[str], needs: Mapping, present: Mapping, name: Any = str) -> None:
    """Refuse a parameter whose step would not run (an option that is ignored is a bug): ``needs[p]`` is the input
    that parameter ``p``'s step needs, ``present[input]`` whether it was given; ``name`` spells a parameter or an
    input in the message (a flag on the command line).

    >>> check_needs(["blend"], {"blend": "aggregate"}, {"aggregate": False})
    Traceback (most recent call last):
    ...
    ValueError: blend given without aggregate: it would be ignored
    """
    unused: dict = {}
    for parameter in given:
        need = needs.get(parameter)
        if need is not None and not present[need]:
            unused.setdefault(need, []).append(parameter)
    for need, parameters in unused.items():
        raise ValueError(f"{', '.join(map(name, parameters))} given without {name(need)}: it would be ignored")


def needed_or_default(values: Mapping[str, Any], defaults: Mapping[str, Any], needs: Mapping, present: Mapping,
                      name: Any = str) -> Dict[str, Any]:
    """``values`` of parameters that default to ``None`` ("not given"), each with its step: a given one whose step
    would not run is refused (:func:`check_needs`); returns them all, ``defaults[p]`` where not given.

    >>> needed_or_default({"seed": None}, {"seed": 0}, {"seed": "triplets"}, {"triplets": False})
    {'seed': 0}
    >>> needed_or_default({"seed": 3}, {"seed": 0}, {"seed": "triplets"}, {"triplets": False})
    Traceback (most recent call last):
    ...
    ValueError: seed given without triplets: it would be ignored
    """
    check_needs([key for key, value in values.items() if value is not None], needs, present, name)
    return {key: defaults[key] if value is None else value for key, value in values.items()}


def check_instance(name: str, value: Any, kind: type, hint: str = "") -> Any:
    """``value`` if it is ``None`` or a ``kind``; a ``TypeError`` naming ``name``, with ``hint`` (what to pass instead),
    otherwise, where a dict would have met a deep ``dataclasses.replace`` error or an empty one been taken as none.

    >>> check_instance("options", {"variant": "paper"}, tuple, "pass keywords instead")
    Traceback (most recent call last):
    ...
    TypeError: options must be a tuple or None, got dict; pass keywords instead
    """
    if value is not None and not isinstance(value, kind):
        article = "an" if kind.__name__[:1].lower() in "aeiou" else "a"
        raise TypeError(f"{name} must be {article} {kind.__name__} or None, got {type(value).__name__}"
                        f"{f'; {hint}' if hint else ''}")
    return value


# ------------------------------------------------------------------------------------------- scalars
def _int_range(minimum: Optional[int], maximum: Optional[int]) -> str:
    if maximum is not None:
        return f"an integer between {minimum:,} and {maximum:,}" if minimum is not None else \
            f"an integer <= {maximum:,}"
    if minimum == 1:
        return "a positive integer"
    return f"an integer >= {minimum:,}" if minimum is not None else "an integer"


class InputTypeError(TypeError, ValueError):
    """A value of the wrong type (a string for a count, a bool for a number): a ``TypeError``, and a
    ``ValueError`` too, so that callers catching the out-of-range errors of the same check catch it."""


def check_int(name: str, value: Any, minimum: Optional[int] = 1, maximum: Optional[int] = None, *,
              allow_none: bool = False, why: str = "") -> Optional[int]:
    """``value`` as an ``int`` (a Python or numpy integer, never a bool) in ``[minimum, maximum]``; ``None``
    passes when ``allow_none``.  ``why`` (a parenthesis in the message) says what the bound is for.

    >>> check_int("seed", 3, minimum=0), check_int("num_threads", None, allow_none=True)
    (3, None)
    >>> check_int("pairs", 1, minimum=2, maximum=10_000_000)
    Traceback (most recent call last):
    ...
    ValueError: pairs must be an integer between 2 and 10,000,000, got 1
    """
    if value is None and allow_none:
        return None
    wrong_type = isinstance(value, bool) or not isinstance(value, numbers.Integral)
    if wrong_type or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        message = (f"{name} must be {_int_range(minimum, maximum)}{' or None' if allow_none else ''}"
                   f"{f' ({why})' if why else ''}, got {_short(value)}")
        raise (InputTypeError if wrong_type else ValueError)(message)
    return int(value)


def check_number(name: str, value: Any, minimum: Optional[float] = None, maximum: Optional[float] = None, *,
                 exclusive: bool = False, allow_none: bool = False, why: str = "") -> Optional[float]:
    """``value`` as a finite ``float`` (any real number but a bool) in ``[minimum, maximum]``
    (``exclusive``: strictly between them); ``None`` passes when ``allow_none``.

    >>> check_number("level", 0.95, 0, 1, exclusive=True)
    0.95
    >>> check_number("blend", 2, 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: blend must be a number in [0, 1], got 2
    """
    if value is None and allow_none:
        return None
    wrong_type = isinstance(value, bool) or not isinstance(value, numbers.Real)
    ok = not wrong_type
    if ok:
        try:
            number = float(value)
        except OverflowError:  # an integer too large for a float
            ok = False
        else:
            ok = math.isfinite(number)
            if ok and minimum is not None:
                ok = number > minimum if exclusive else number >= minimum
            if ok and maximum is not None:
                ok = number < maximum if exclusive else number <= maximum
    if not ok:
        if minimum is not None and maximum is not None:
            bound = (f"a number strictly between {minimum} and {maximum}" if exclusive
                     else f"a number in [{minimum}, {maximum}]")
        elif minimum is not None:
            bound = (f"a number > {minimum}" if exclusive else
                     "a finite non-negative number" if minimum == 0 else f"a number >= {minimum}")
        elif maximum is not None:
            bound = f"a number < {maximum}" if exclusive else f"a number <= {maximum}"
        else:
            bound = "a finite number"
        message = f"{name} must be {bound}{' or None' if allow_none else ''}{f' ({why})' if why else ''}, got {_short(value)}"
        raise (InputTypeError if wrong_type else ValueError)(message)
    return number


def refuse_meta(name: str, value: Any) -> Any:
    """``value``, unless it is a tensor on torch's meta device (a shape without values: torch's own error comes from
    deep inside, "Cannot copy out of meta tensor"); then a ``ValueError`` naming ``name``."""
    if getattr(value, "is_meta", False) is True:
        raise ValueError(f"{name} is a tensor on the meta device: it has a shape and no values; give a tensor on a "
                         "real device (.to('cpu'))")
    return value


def one_number(name: str, value: Any) -> Any:
    """A tensor or array of one element as that element (torchmetrics' plot takes any tensor of one element; numpy
    gives 0-d arrays); other values as they are, for :func:`check_number`.  More elements, or a meta tensor, is a
    ``ValueError`` naming ``name``.

    >>> import numpy as np
    >>> one_number("mean_f1", np.array(0.5)), one_number("mean_f1", 0.5)
    (0.5, 0.5)
    """
    if not (hasattr(value, "shape") and hasattr(value, "item")) or isinstance(value, numbers.Number):
        return value  # numpy scalars have a shape too, and are numbers already
    refuse_meta(name, value)
    if math.prod(value.shape) != 1:
        raise ValueError(f"{name} must be one number (a 0-d tensor or array), got a {type(value).__name__} of shape "
                         f"{tuple(value.shape)}")
    return value.item()


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is ``True`` or ``False`` (not 1, not "yes"); a ``TypeError`` otherwise.

    >>> check_bool("siblings", "yes")
    Traceback (most recent call last):
    ...
    TypeError: siblings must be True or False, got 'yes'
    """
    if value is not True and value is not False:
        raise TypeError(f"{name} must be True or False, got {_short(value)}")
    return value


def check_text(name: str, value: Any) -> str:
    """``value`` if it is a string; a ``TypeError`` naming ``name`` and the type otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({type(value).__name__})"


# ------------------------------------------------------------------------------------------- texts
# Sets and dicts iterate in an order that can change between runs (string hashing is salted), so
# outputs and best_reference indices would not line up with anything: refused, not guessed.
_UNORDERED = (set, frozenset, dict, Mapping, Set)

# Python strings may hold lone surrogates ("\ud800": no UTF-8 form), which tokenizers, Arrow and
# every file format refuse. The one rule for all entry points: each becomes U+FFFD, the character
# a UTF-8 decoder puts in place of bytes it cannot decode. No tokenizer keeps a symbol, so static
# scores equal those of the raw text.
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(values: List[str]) -> List[str]:
    """``values`` with every lone surrogate replaced by U+FFFD (the list itself when there is none)."""
    if not _has_surrogates("".join(values)):  # one C-level pass for the common case
        return values
    return [_SURROGATE.sub("\ufffd", value) for value in values]


def _has_surrogates(text: str) -> bool:
    if text.isascii():  # O(1): CPython knows it
        return False
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _refuse_container(name: str, values: Any, what: str) -> None:
    if isinstance(values, (str, bytes)) or isinstance(values, _UNORDERED) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be {what}, got {type(values).__name__}")
    if hasattr(values, "columns") and getattr(values, "ndim", None) == 2:
        # A table (pandas' DataFrame) iterates over its column labels, not its rows: a one-column frame of
        # predictions and one of references were scored as one pair, the two column names.
        rows = ", or frame.values.tolist() for several a row" if "lists" in what else ""
        raise TypeError(f"{name} must be {what}, got {type(values).__name__} (iterating over it gives its column "
                        f"names, not its rows); pass one of its columns, frame[column]{rows}")


def check_texts(name: str, values: Any) -> List[str]:
    """The one check of a list of texts (``predictions``, a ``prediction`` wrapped in a list): a list
    of strings, in order, each lone surrogate replaced by U+FFFD; a one-line ``TypeError`` naming
    ``name`` (and the item at fault) otherwise.

    >>> check_texts("predictions", ("getCount", "size"))
    ['getCount', 'size']
    """
    _refuse_container(name, values, "a list of strings")
    values = list(values)
    if not set(map(type, values)) <= {str}:  # the common case is checked at C speed
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}] must be a string, got {type(value).__name__} ({_short(value)})")
    return without_surrogates(values)


def check_pair(prediction: Any, reference: Any) -> Tuple[str, str]:
    """The one check of a single pair (``explain``, the pictures): a string each, lone surrogates replaced as
    :func:`check_texts` replaces them; a list is refused (of several references, ``score`` takes the best one: one
    pair cannot show that).

    >>> check_pair("get count", ["size", "getCount"])
    Traceback (most recent call last):
    ...
    TypeError: reference must be a string, got list
    """
    pair = without_surrogates([check_text("prediction", prediction), check_text("reference", reference)])
    return pair[0], pair[1]


_LISTS = {list, tuple}


def read_references(references: Any) -> Tuple[List[str], Optional[List[List[str]]]]:
    """The one reading of a ``references`` argument, as ``(every reference in order, the lists)``: each item
    is a string (one reference) or a non-empty list of strings (several); the lists are ``None`` when each
    item holds one reference, so the common case builds no list per item.

    Items of both kinds may be mixed in one call. Every adapter (the evaluate module, the app, datasets
    scoring) reads references through this function, so none can take a plain string for a list of
    characters or a list for its string form.  Lists of lists and lists of strings are read in one pass at
    C speed; other iterables item by item.

    >>> read_references(["size", "get_count"])
    (['size', 'get_count'], None)
    >>> read_references([["size", "get_count"], "set_color"])
    (['size', 'get_count', 'set_color'], [['size', 'get_count'], ['set_color']])
    """
    _refuse_container("references", references, "a list of strings or of lists of strings")
    references = list(references)
    kinds = set(map(type, references))
    if kinds <= {str}:
        return without_surrogates(references), None
    if kinds <= _LISTS:
        if 0 not in map(len, references):
            flat = list(chain.from_iterable(references))
            if set(map(type, flat)) <= {str}:
                if not _has_surrogates("".join(flat)):  # else the item-by-item path replaces them
                    if len(flat) == len(references):  # one reference each
                        return flat, None
                    return flat, list(map(list, references))
    return _read_each(references)


def _read_one(i: int, ref: Any) -> List[str]:
    """Item ``i`` of a ``references`` argument as its list of references (the rule of :func:`read_references`)."""
    if isinstance(ref, str):
        return without_surrogates([ref])
    if type(ref) not in _LISTS and (ref is None or not hasattr(ref, "__iter__")
                                    or isinstance(ref, (bytes, *_UNORDERED))):
        raise TypeError(f"references[{i}] must be a string or a list of strings, got {type(ref).__name__}")
    try:
        ref = list(ref)
    except TypeError:  # a 0-d tensor or array has __iter__ and refuses to be iterated
        raise TypeError(f"references[{i}] must be a string or a list of strings, got {type(ref).__name__}") from None
    if not ref:
        raise ValueError(f"references[{i}] is an empty list; give at least one reference")
    for j, item in enumerate(ref):
        if not isinstance(item, str):
            raise TypeError(f"references[{i}][{j}] must be a string, got {type(item).__name__} ({_short(item)})")
    return without_surrogates(ref)


def _read_each(references: List[Any]) -> Tuple[List[str], Optional[List[List[str]]]]:
    out = [_read_one(i, ref) for i, ref in enumerate(references)]
    flat = list(chain.from_iterable(out))
    return flat, (None if len(flat) == len(out) else out)


def iter_reference_lists(references: Iterable[Any]) -> Iterator[List[str]]:
    """:func:`reference_lists` one item at a time, for a stream that need not be held (fitting IDF): a string is
    one reference, never a list of characters.

    >>> list(iter_reference_lists(iter(["set_color", ["size", "get_count"]])))
    [['set_color'], ['size', 'get_count']]
    """
    _refuse_container("references", references, "a list of strings or of lists of strings")
    for i, ref in enumerate(references):
        yield _read_one(i, ref)


def groups_of(flat: List[str], groups: Optional[List[List[str]]]) -> List[List[str]]:
    """The lists of :func:`read_references`' pair (one list per reference where ``groups`` is None)."""
    return [[ref] for ref in flat] if groups is None else groups


def reference_lists(references: Any) -> List[List[str]]:
    """:func:`read_references` as one list of strings per item.

    >>> reference_lists([["size", "get_count"], "set_color"])
    [['size', 'get_count'], ['set_color']]
    """
    return groups_of(*read_references(references))


def check_references(references: Any, n: int, flat: bool = False) -> Any:
    """:func:`reference_lists` of ``references``, which must hold ``n`` items (one per prediction); a
    one-line ``ValueError`` naming both lengths otherwise.  ``flat=True``: :func:`read_references`' pair."""
    every, groups = read_references(references)
    count = len(every) if groups is None else len(groups)
    if count != n:
        raise ValueError(f"predictions and references must have the same length, got {n} and {count}")
    return (every, groups) if flat else groups_of(every, groups)

