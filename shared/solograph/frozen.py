"""`Frozen`: a small immutable record for the types every command builds at start-up
(settings, the index descriptions, the registry's projects); `Record`, its mutable sibling.

Dataclasses and NamedTuples generate their methods with `exec` when the class is defined, and
`dataclasses` imports `inspect`; together that was a fifth of a symbol search's whole-process
time. A record's fields are its annotated names in order (a base class's first); a class
attribute of the same name is the field's default, read through the class until set, or made
for each record when it is a `factory(default_factory=list)`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any, Self, dataclass_transform
else:
    def dataclass_transform(**_kwargs):  # the type checker's only: nothing to do at run time
        return lambda cls: cls


class _Factory:
    def __init__(self, make: Any) -> None:
        self.make = make


def factory(default_factory: Any) -> Any:
    """A default made anew for each record (`factory(default_factory=list)`): a mutable
    default is never shared. (The keyword is what a type checker reads as a default.)"""
    return _Factory(default_factory)


class _Fields:
    """What both kinds of record share: fields from annotations, an __init__ that checks
    them, equality, `with_` and `to_dict`."""

    _fields: tuple[str, ...] = ()
    _made: tuple[str, ...] = ()  # the fields whose default is a factory

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: list[str] = []
        for base in reversed(cls.__mro__):
            for name in base.__dict__.get("__annotations__", {}):
                if not name.startswith("_") and name not in fields:
                    fields.append(name)
        cls._fields = tuple(fields)
        cls._made = tuple(n for n in fields if isinstance(getattr(cls, n, None), _Factory))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if len(args) > len(cls._fields):
            raise TypeError(f"{cls.__name__} takes at most {len(cls._fields)} arguments")
        values = dict(zip(cls._fields, args, strict=False))
        for name, value in kwargs.items():
            if name not in cls._fields:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
            if name in values:
                raise TypeError(f"{cls.__name__} got {name!r} twice")
            values[name] = value
        missing = [n for n in cls._fields if n not in values and not hasattr(cls, n)]
        if missing:
            raise TypeError(f"{cls.__name__} needs {', '.join(missing)}")
        for name in cls._made:
            if name not in values:
                values[name] = getattr(cls, name).make()
        vars(self).update(values)

    def _values(self) -> tuple:
        return tuple(getattr(self, n) for n in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({inner})"

    def with_(self, **changes: Any) -> Self:
        """A copy with `changes` applied."""
        return type(self)(**{**{n: getattr(self, n) for n in self._fields}, **changes})

    def to_dict(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self._fields}


@dataclass_transform(frozen_default=False, field_specifiers=(factory,))
# The type checker reads a record's fields as a dataclass's: its __init__ is checked (names,
# types, which have defaults), and so is every attribute a frozen record is given.
@dataclass_transform(frozen_default=True, field_specifiers=(factory,))
class Frozen(_Fields):
    """An immutable record, hashable by its values."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use with_()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))


@dataclass_transform(field_specifiers=(factory,))
class Record(_Fields):
    """A mutable record: the same fields and defaults, attributes set freely, no hash."""

    __hash__ = None  # type: ignore[assignment]
