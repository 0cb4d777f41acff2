"""The membership form of the prover's formulas (:mod:`landing_zone.prove.prover`): a Boolean skeleton over
string *membership atoms* ``x in R`` (:class:`_MembershipForm`), and the theory that decides conjunctions of such
atoms over one string variable with z3 and remembers its conflicts (:class:`_Theory`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import z3

_ALL = z3.AllChar(z3.ReSort(z3.StringSort()))

Literal_ = tuple[int, bool]  # (regular expression id, polarity) of one membership atom


class _MembershipForm:
    """Splits formulas into a Boolean skeleton and string *membership atoms* ``x in R`` (``R`` a regular
    expression, ``x`` one string variable of the request).

    z3's sequence solver is slow on the obligations' mix of negated memberships, ``x == "lit"`` and ``suffixof``
    over several variables (P2 and P3 timed out at 60 s).  Every atom over a string constant (``x in R``,
    ``x == "s"``, ``prefixof``/``suffixof`` of a literal) becomes a fresh Boolean; what remains (the skeleton) is
    propositional with a little integer arithmetic (value counts), which z3 decides instantly.  The atoms are
    decided per variable by :class:`_Theory`.  A formula that keeps any other string term is reported by
    :attr:`pure` being false (the caller then hands the whole formula to z3)."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[z3.ExprRef, frozenset[int], bool]] = {}  # id -> (skeleton, atom ids, pure)
        self.atoms: dict[int, tuple[z3.BoolRef, z3.SeqRef, z3.ReRef]] = {}  # Boolean id -> (b, variable, regex)
        self._by_key: dict[tuple[int, int], z3.BoolRef] = {}
        self._keep: list[z3.ExprRef] = []  # the rewritten expressions stay alive, so that their ids stay theirs

    def split(
        self, formulas: Iterable[z3.BoolRef]
    ) -> tuple[list[z3.ExprRef], list[tuple[z3.BoolRef, z3.SeqRef, z3.ReRef]], bool]:
        """The skeletons of ``formulas``, the atoms they use, and whether no other string term is left."""
        skeleton: list[z3.ExprRef] = []
        atoms: set[int] = set()
        pure = True
        for f in formulas:
            out, used, ok = self._rewrite(f)
            skeleton.append(out)
            atoms |= used
            pure = pure and ok
        return skeleton, [self.atoms[a] for a in sorted(atoms)], pure

    def _atom(self, x: z3.SeqRef, regex: z3.ReRef) -> z3.BoolRef:
        k = (x.get_id(), regex.get_id())
        if k not in self._by_key:
            b = z3.Bool(f"atom!{x}!{regex.get_id()}")
            self._by_key[k] = b
            self.atoms[b.get_id()] = (b, x, regex)
        return self._by_key[k]

    def _string_atom(self, kind: int, ch: list[z3.ExprRef]) -> tuple[z3.BoolRef | None, bool] | None:
        """None for a term with no string argument; else (its membership atom, True) when it has one of the atoms'
        shapes (``x in R``, ``x == "v"``, a prefix or suffix test on a variable) and (None, False) when not."""
        strings = [c for c in ch if c.sort() == z3.StringSort()]
        if kind == z3.Z3_OP_SEQ_IN_RE and z3.is_const(ch[0]):
            return self._atom(ch[0], ch[1]), True
        if kind == z3.Z3_OP_EQ and len(strings) == 2 and any(map(z3.is_string_value, ch)):
            x, v = (ch[0], ch[1]) if z3.is_string_value(ch[1]) else (ch[1], ch[0])
            if z3.is_const(x) and not z3.is_string_value(x):
                return self._atom(x, z3.Re(v)), True
            return None, False
        if kind in (z3.Z3_OP_SEQ_PREFIX, z3.Z3_OP_SEQ_SUFFIX) and z3.is_string_value(ch[0]) and z3.is_const(ch[1]):
            rest = z3.Star(_ALL)
            regex = z3.Concat(z3.Re(ch[0]), rest) if kind == z3.Z3_OP_SEQ_PREFIX else z3.Concat(rest, z3.Re(ch[0]))
            return self._atom(ch[1], regex), True
        if strings:
            return None, False
        return None

    def _rewrite_connective(self, e: z3.ExprRef, ch: list[z3.ExprRef]) -> tuple[z3.ExprRef, frozenset[int], bool]:
        """A Boolean connective with its Boolean arguments rewritten (the term itself when none changed)."""
        parts = [self._rewrite(c) if c.sort() == z3.BoolSort() else (c, frozenset[int](), True) for c in ch]
        used = frozenset().union(*(u for _, u, _ in parts))
        pure = all(ok for _, _, ok in parts)
        out = e
        if any(not a.eq(c) for (a, _, _), c in zip(parts, ch, strict=True)):
            out = e.decl()(*[a for a, _, _ in parts])
        return out, used, pure

    def _rewrite(self, e: z3.ExprRef) -> tuple[z3.ExprRef, frozenset[int], bool]:
        key = e.get_id()
        if key in self._cache:
            return self._cache[key]
        out, used, pure = e, frozenset[int](), True
        if z3.is_app(e) and e.num_args():
            ch = e.children()
            string_atom = self._string_atom(e.decl().kind(), ch)
            if string_atom is not None:
                atom, pure = string_atom
                if atom is not None:
                    out, used = atom, frozenset({atom.get_id()})
            elif e.sort() == z3.BoolSort():
                out, used, pure = self._rewrite_connective(e, ch)
        self._keep += [e, out]
        self._cache[key] = (out, used, pure)
        return self._cache[key]


class _Theory:
    """Decides conjunctions of membership literals over one string variable (``x in R`` / ``x in complement(R)``)
    with z3, and remembers the answers: the same literals recur across the obligations of a proof run, and a
    conflict (a minimal set of literals no string satisfies) is a fact about regular languages, valid in every
    later question (:meth:`conflicts_within`)."""

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        self._regex: dict[int, z3.ReRef] = {}  # keeps every regex alive, so that its id stays its own
        self._answers: dict[tuple[int, frozenset[Literal_]], tuple[str, Any]] = {}
        self._conflicts: dict[int, set[frozenset[Literal_]]] = {}
        self._members: dict[tuple[str, int], bool | None] = {}

    def _sat(self, x: z3.SeqRef, literals: frozenset[Literal_]) -> tuple[str, Any]:
        """("sat", a value) | ("unsat", None) | ("unknown", None), cached.  One membership in the intersection of
        the literals' languages, in a fresh solver: z3 decides that by derivatives of the one regex, far faster than
        separate (or tracked) memberships of the same variable."""
        key = (x.get_id(), literals)
        if key not in self._answers:
            solver = z3.Solver()
            solver.set("timeout", self.timeout_ms)
            langs = [self._regex[rid] if pol else z3.Complement(self._regex[rid]) for rid, pol in sorted(literals)]
            if langs:
                solver.add(z3.InRe(x, langs[0] if len(langs) == 1 else z3.Intersect(*langs)))
            r = solver.check()
            if r == z3.sat:
                self._answers[key] = ("sat", str(solver.model().eval(x, model_completion=True).as_string()))
            else:
                self._answers[key] = (str(r), None)
        return self._answers[key]

    def _member(self, value: str, rid: int) -> bool | None:
        """Whether a concrete string is in a literal's language (ground: z3's simplifier decides it), cached."""
        key = (value, rid)
        if key not in self._members:
            out = z3.simplify(z3.InRe(z3.StringVal(value), self._regex[rid]))
            self._members[key] = True if z3.is_true(out) else False if z3.is_false(out) else None
        return self._members[key]

    def _core(self, literals: frozenset[Literal_]) -> set[Literal_]:
        """An unsatisfiable subset of ``literals`` (the solver's core of tracked memberships, else all of them)."""
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
        back: dict[int, Literal_] = {}
        x = z3.String("core!x")
        for rid, pol in sorted(literals):
            p = z3.Bool(f"lit!{rid}!{int(pol)}")
            back[p.get_id()] = (rid, pol)
            solver.assert_and_track(z3.InRe(x, self._regex[rid] if pol else z3.Complement(self._regex[rid])), p)
        if solver.check() == z3.unsat:
            return {back[c.get_id()] for c in solver.unsat_core()}
        return set(literals)

    def check(self, x: z3.SeqRef, literals: Iterable[tuple[z3.ReRef, bool]]) -> tuple[str, Any]:
        """``("sat", a value)``, ``("unsat", a minimal conflicting literal set)`` or ``("unknown", reason)``."""
        lits: set[Literal_] = set()
        for regex, pol in literals:
            self._regex.setdefault(regex.get_id(), regex)
            lits.add((regex.get_id(), pol))
        full = frozenset(lits)
        for known in self._conflicts.get(x.get_id(), ()):
            if known <= full:
                return "unsat", known
        # a variable pinned to one string (x == "s"): every other literal is a ground membership of "s"
        for rid, pol in sorted(full):
            regex = self._regex[rid]
            if pol and regex.decl().kind() == z3.Z3_OP_SEQ_TO_RE and z3.is_string_value(regex.arg(0)):
                value = str(regex.arg(0).as_string())
                verdicts = [(lit, self._member(value, lit[0])) for lit in sorted(full)]
                if all(v is not None for _, v in verdicts):
                    wrong = next((lit for lit, v in verdicts if v != lit[1]), None)
                    if wrong is None:
                        return "sat", value
                    conflict = frozenset({(rid, pol), wrong})
                    self._conflicts.setdefault(x.get_id(), set()).add(conflict)
                    return "unsat", conflict
                break
        status, value = self._sat(x, full)
        if status == "sat":
            return "sat", value
        if status != "unsat":
            return "unknown", "a string constraint the solver gave up on"
        core = self._core(full)
        for lit in sorted(core):  # deletion-based minimisation of a (usually small) core
            if len(core) > 1 and self._sat(x, frozenset(core - {lit}))[0] == "unsat":
                core.discard(lit)
        conflict = frozenset(core)
        self._conflicts.setdefault(x.get_id(), set()).add(conflict)
        return "unsat", conflict

    def conflicts_within(self, x: z3.SeqRef, present: set[int]) -> list[frozenset[Literal_]]:
        """Known conflicts over ``x`` whose regexes all occur in a question (their blocking clauses apply)."""
        return [c for c in self._conflicts.get(x.get_id(), ()) if all(rid in present for rid, _ in c)]


def _non_string_constants(formulas: Sequence[z3.ExprRef]) -> list[z3.ExprRef]:
    """The Boolean and integer constants of the request in the skeleton (present flags, value counts)."""
    seen: dict[int, z3.ExprRef] = {}
    todo = list(formulas)
    visited: set[int] = set()
    while todo:
        e = todo.pop()
        if e.get_id() in visited:
            continue
        visited.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if not str(e).startswith("atom!"):
                seen[e.get_id()] = e
        elif z3.is_app(e):
            todo.extend(e.children())
    return list(seen.values())
