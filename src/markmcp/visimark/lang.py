"""The VisiMark rule language: lexer, precedence parser and statement grammar.

A ``vmark`` block body is a list of statements, one per line::

    name [unit] precision N = expr      binding (scalar or column rule)
    "Header text" precision N = expr    quoted-head column rule
    "Header text" is symbol             column alias
    assert expr                         invariant
    param name [unit] precision N [preset] [in domain] = default literal
    [J] = [N⋅m]                          unit definition (document scope only)

Every function here is pure: text and absolute offsets in, AST or LangError out.
The tree and the error are defined in :mod:`.syntax`; :func:`parse_statement`
hands ``chart`` and ``report`` lines to their own grammar in :mod:`.statements`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from .domain import Clause, DomainSyntaxError, parse_clause
from .statements import is_report_line, parse_chart, parse_report
from .syntax import (Alias, Assert, Binary, Binding, Call, DateLit, LangError, Node, Num, Param, Ref, Statement,
                     Str, Unary, UnitDef)
from .units import UnitSyntaxError, parse_unit

MAX_DEPTH = 256

IDENT_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
IDENT_CHARS = IDENT_START + "0123456789"
DIGITS = "0123456789"
RESERVED = {"assert", "is", "precision", "chart"}
WORD_OPERATORS = {"and", "or", "not"}
BOOLEAN_WORDS = {"true", "false"}
# upstream's wording, for `true` or `false` written as a value or as a name
NO_BOOLEAN_LITERALS = "VisiMark has no boolean literals; use `IF()` to produce a number or a string"
GLYPH_CALLS = {"Σ": "SUM", "∑": "SUM", "√": "SQRT"}
SIMPLE_OPS = {"+", "-", "*", "/", "^", "(", ")", ",", ".", "|", "⌊", "⌋", "⌈", "⌉", "<", ">", "="}
TWO_CHAR_OPS = {"==", "!=", "<=", ">="}
COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


# ---------------------------------------------------------------------------
# Lexer


@dataclass
class Token:
    kind: str  # NUM DATE STR IDENT OP BRACKET EOF
    text: str
    start: int
    end: int
    value: object = None


def _lex_number(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] in DIGITS:
        pos += 1
    if pos + 1 < len(src) and src[pos] == "." and src[pos + 1] in DIGITS:
        pos += 1
        while pos < len(src) and src[pos] in DIGITS:
            pos += 1
    return pos


def tokenize(src: str, base: int) -> list[Token]:
    """Split one statement's text into tokens carrying absolute offsets."""
    toks: list[Token] = []
    pos = 0
    n = len(src)
    while pos < n:
        ch = src[pos]
        if ch in " \t":
            pos += 1
            continue
        at = base + pos
        if ch == "#":
            if pos == 0 or src[pos - 1] in " \t":
                break  # comment to end of line
            raise LangError("`#` is not part of an expression; a comment starts with ` #`", at)
        if ch in DIGITS:
            m = DATE_RE.match(src, pos)
            if m and (m.end() == n or src[m.end()] not in DIGITS):
                text = m.group(0)
                try:
                    value = date.fromisoformat(text)
                except ValueError:
                    raise LangError(f"`{text}` is not a calendar date", at, "DATE") from None
                toks.append(Token("DATE", text, at, base + m.end(), value))
                pos = m.end()
                continue
            end = _lex_number(src, pos)
            if end < n and src[end] == "," and re.match(r",\d{3}(?!\d)", src[end:]) and not toks_in_call(toks):
                raise LangError("thousands separators are not allowed; write the number without them", at)
            pct = end < n and src[end] == "%"
            toks.append(Token("NUM", src[pos:end], at, base + end + (1 if pct else 0), pct))
            pos = end + (1 if pct else 0)
            continue
        if ch in IDENT_START:
            end = pos
            while end < n and src[end] in IDENT_CHARS:
                end += 1
            toks.append(Token("IDENT", src[pos:end], at, base + end))
            pos = end
            continue
        if ch in GLYPH_CALLS:
            toks.append(Token("IDENT", GLYPH_CALLS[ch], at, at + 1, ch))
            pos += 1
            continue
        if ch == '"':
            end = src.find('"', pos + 1)
            if end == -1:
                raise LangError("unterminated string: a string ends with `\"`", at)
            toks.append(Token("STR", src[pos + 1 : end], at, base + end + 1))
            pos = end + 1
            continue
        if ch == "[":
            end = src.find("]", pos + 1)
            if end == -1:
                raise LangError("unclosed `[`", at)
            toks.append(Token("BRACKET", src[pos + 1 : end], at, base + end + 1))
            pos = end + 1
            continue
        two = src[pos : pos + 2]
        if two in TWO_CHAR_OPS:
            toks.append(Token("OP", two, at, at + 2))
            pos += 2
            continue
        if ch == "⋅":
            toks.append(Token("OP", "*", at, at + 1, "⋅"))
            pos += 1
            continue
        if ch in SIMPLE_OPS:
            toks.append(Token("OP", ch, at, at + 1))
            pos += 1
            continue
        if ch == "%":
            raise LangError("`%` only follows a number (23% is 0.23); use MOD() for a remainder", at)
        # quoted as upstream's lexer quotes it (JSON), the form its lexer test pins:
        # unexpected character "σ"
        raise LangError(f"unexpected character {json.dumps(ch, ensure_ascii=False)}", at)
    toks.append(Token("EOF", "", base + pos, base + pos))
    return toks


def toks_in_call(toks: list[Token]) -> bool:
    """True when the tokens so far leave a parenthesis open (a comma may separate args)."""
    depth = 0
    for t in toks:
        if t.kind == "OP" and t.text in "(⌊⌈":
            depth += 1
        elif t.kind == "OP" and t.text in ")⌋⌉":
            depth -= 1
    return depth > 0


# ---------------------------------------------------------------------------
# Expression parser (precedence climbing)

BINARY_POWER = {
    "or": 1,
    "and": 2,
    "==": 4,
    "!=": 4,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "^": 8,
}


class Parser:
    """Parses one expression from a token list; ``pos`` indexes the tokens."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.pos = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def advance(self) -> Token:
        t = self.toks[self.pos]
        if t.kind != "EOF":
            self.pos += 1
        return t

    def is_op(self, text: str) -> bool:
        return self.tok.kind == "OP" and self.tok.text == text

    def expect_op(self, text: str, what: str) -> Token:
        if not self.is_op(text):
            raise LangError(f"expected `{text}` {what}", self.tok.start)
        return self.advance()

    def _binary_op(self) -> str | None:
        t = self.tok
        if t.kind == "OP" and t.text in BINARY_POWER:
            return t.text
        if t.kind == "IDENT" and t.text in ("and", "or"):
            return t.text
        return None

    def expression(self, min_power: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LangError(f"expression nests more than {MAX_DEPTH} levels deep", self.tok.start)
        left = self.prefix()
        while True:
            op = self._binary_op()
            if op is None:
                break
            power = BINARY_POWER[op]
            if power <= min_power:
                break
            op_tok = self.advance()
            if op == "^":
                right = self.expression(power - 1)  # right-associative
            else:
                right = self.expression(power)
            if op in COMPARISONS and self._binary_op() in COMPARISONS:
                raise LangError(
                    "comparisons do not chain: write `a < b and b < c`", self.tok.start
                )
            left = Binary(left.start, right.end, op_tok.text, left, right)
        self.depth -= 1
        if self.depth == 0:
            _check_tree_depth(left)
        return left

    def prefix(self) -> Node:
        t = self.tok
        if t.kind == "NUM":
            self.advance()
            value = Decimal(t.text)
            places = len(t.text.split(".")[1]) if "." in t.text else 0
            if t.value:  # percent: exactly the written number / 100, its decimals + 2 (`40%` is 0.40)
                node = Num(t.start, t.end, value.scaleb(-2), places + 2, percent=True)
            else:
                node = Num(t.start, t.end, value, places)
            if self.tok.kind == "BRACKET":
                b = self.advance()
                if node.percent:
                    raise LangError(f"{t.text}% is a ratio and cannot carry a unit", b.start, "UNIT")
                try:
                    node.unit = parse_unit(b.text)
                except UnitSyntaxError as e:
                    raise LangError(str(e), b.start, "UNIT") from None
                node.unit_span = (b.start, b.end)
                node.end = b.end
            return node
        if t.kind == "DATE":
            self.advance()
            return DateLit(t.start, t.end, t.value)  # type: ignore[arg-type]
        if t.kind == "STR":
            self.advance()
            return Str(t.start, t.end, t.text)
        if t.kind == "OP":
            if t.text == "-":
                self.advance()
                operand = self.expression(7)
                return Unary(t.start, operand.end, "-", operand)
            if t.text == "(":
                self.advance()
                inner = self.expression()
                close = self.expect_op(")", "to close `(`")
                return _with_span(inner, t.start, close.end)
            if t.text == "|":
                self.advance()
                inner = self.expression()
                if not self.is_op("|"):
                    raise LangError("expected `|`", self.tok.start)
                close = self.advance()
                return Call(t.start, close.end, "ABS", [inner], glyph="|")
            if t.text in ("⌊", "⌈"):
                closer = "⌋" if t.text == "⌊" else "⌉"
                self.advance()
                if self.is_op(closer):  # `⌊⌋`: the operand is missing
                    raise LangError(f"unexpected `{closer}`", self.tok.start)
                inner = self.expression()
                if not self.is_op(closer):
                    raise LangError(f"expected `{closer}`", self.tok.start)
                close = self.advance()
                name = "FLOOR" if t.text == "⌊" else "CEILING"
                one = Num(close.start, close.start, Decimal(1), 0)
                return Call(t.start, close.end, name, [inner, one], glyph=t.text, implicit_step=True)
        if t.kind == "IDENT":
            if t.text in BOOLEAN_WORDS:
                raise LangError(NO_BOOLEAN_LITERALS, t.start)
            if t.text in RESERVED:
                raise LangError(f"`{t.text}` is a keyword and cannot be used as a name", t.start)
            if t.text == "not":
                self.advance()
                operand = self.expression(3)
                return Unary(t.start, operand.end, "not", operand)
            if t.text in WORD_OPERATORS:
                raise LangError(f"`{t.text}` needs an operand before it", t.start)
            self.advance()
            if self.is_op("("):
                self.advance()
                args: list[Node] = []
                if not self.is_op(")"):
                    while True:
                        args.append(self.expression())
                        if self.is_op(","):
                            self.advance()
                            continue
                        break
                close = self.expect_op(")", f"to close the call to {t.text}")
                return Call(t.start, close.end, t.text, args, glyph=t.value)  # type: ignore[arg-type]
            # a glyph (√, Σ, ∑) not followed by `(` is the name it lexes as, read as a name like
            # any other (upstream's prose-notation spec §4: a bare `√` is UNDEF `SQRT` at the
            # glyph, and `√a` leaves `a` unexpected, "parity with `Σ a`")
            if self.is_op("."):
                self.advance()
                nt = self.tok
                if nt.kind != "IDENT":
                    raise LangError("expected a name after `.`", nt.start)
                self.advance()
                ref = Ref(t.start, nt.end, nt.text, t.text)
            else:
                ref = Ref(t.start, t.end, t.text)
            if self.tok.kind == "BRACKET":
                raise LangError(
                    "a unit can be written only on a number literal", self.tok.start, "UNIT"
                )
            return ref
        if t.kind == "EOF":
            raise LangError("expected a value, found the end of the line", t.start)
        if t.kind == "BRACKET":
            raise LangError("a unit can be written only on a number literal", t.start, "UNIT")
        if t.kind == "OP" and t.text in ("⌋", "⌉"):
            raise LangError(f"`{t.text}` has no opening `{'⌊' if t.text == '⌋' else '⌈'}`", t.start)
        raise LangError(f"unexpected `{t.text}`", t.start)


def _check_tree_depth(root: Node) -> None:
    """Refuse a tree deeper than MAX_DEPTH, found without recursion.  The parser's own
    count cannot see a left-associative chain (``1+1+…+1`` is read in a loop, and builds a
    spine as deep as it is long), which every recursive walk after it would then overflow
    on.  As upstream's parser refuses it (its pathological-input test: a 200-term chain is
    accepted, 400 and a sum of 300 columns are refused), at the deepest node."""
    deepest, at = 0, root
    stack: list[tuple[Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, at = depth, node
        if isinstance(node, Binary):
            stack += [(node.left, depth + 1), (node.right, depth + 1)]
        elif isinstance(node, Unary):
            stack.append((node.operand, depth + 1))
        elif isinstance(node, Call):
            stack += [(arg, depth + 1) for arg in node.args]
    if deepest > MAX_DEPTH:
        raise LangError(f"expression nests more than {MAX_DEPTH} levels deep", at.start)


def _with_span(node: Node, start: int, end: int) -> Node:
    """Parentheses widen a node's span so substitution and formulas keep them."""
    node.start = start
    node.end = end
    return node


def parse_expression(src: str, base: int = 0) -> Node:
    """Parse a complete expression; anything left over is an error."""
    toks = tokenize(src, base)
    p = Parser(toks)
    node = p.expression()
    _expect_end(p)
    return node


def _expect_end(p: Parser) -> None:
    t = p.tok
    if t.kind == "EOF":
        return
    if t.kind == "OP" and t.text == "=":
        raise LangError("`=` binds a name; compare with `==`", t.start)
    if t.kind == "OP" and t.text == ",":
        raise LangError("unexpected `,` — thousands separators are not allowed", t.start)
    if t.kind == "OP" and t.text in ("⌋", "⌉"):
        raise LangError(f"`{t.text}` has no opening `{'⌊' if t.text == '⌋' else '⌈'}`", t.start)
    if t.kind == "OP" and t.text in ("|", ")"):
        raise LangError(f"unexpected `{t.text}`", t.start)
    if t.kind == "IDENT":
        # upstream's parser words a name left over as its token kind, and its prose-notation
        # spec §4 pins that text (`|a|b` and `√a`: "unexpected ident", at the name)
        raise LangError("unexpected ident", t.start)
    raise LangError(f"unexpected `{t.text}` after the expression", t.start)


# ---------------------------------------------------------------------------
# Statements

# `param NAME`: a keyword (`param precision 2 = …` binds a scalar called `param`) is no NAME
PARAM_HEAD_RE = re.compile(r"param\s+(?!(?:assert|is|precision|chart)(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*\s*"
                           r"(?:\[[^\]]*\]\s*)?(?:precision\s+\S+\s*)?")


def parse_statement(src: str, base: int = 0) -> Statement | None:
    """Parse one block line (without its newline); ``None`` for blank or comment lines."""
    stripped = src.strip()
    if not stripped or stripped.startswith("#"):
        return None
    lead = len(src) - len(src.lstrip())
    # the source text of the statement, without a trailing comment
    text_end = _comment_start(src)
    source = src[lead:text_end].rstrip()
    start, end = base + lead, base + lead + len(source)

    first = re.match(r"[A-Za-z_][A-Za-z0-9_]*", stripped)
    word = first.group(0) if first else ""
    if word == "chart" and not re.match(r"chart\s*(=|\[|precision\b)", stripped):
        return parse_chart(src[:text_end], base, start, end, source)
    if word == "report":
        if is_report_line(src[:text_end].strip()):
            return parse_report(src[lead:text_end], base + lead, start, end, source)
    if stripped.startswith("["):
        return _unit_definition(src, base, start, end, source)

    clause = None
    lexed = src[:text_end]
    if word == "param":
        head = PARAM_HEAD_RE.match(src, lead)
        eq = src.find("=", head.end(), text_end) if head else -1
        if head and eq != -1 and src[head.end():eq].strip():
            try:
                clause = parse_clause(src[head.end():eq])
            except DomainSyntaxError as e:
                raise LangError(e.message, base + head.end() + e.pos) from None
            # the clause is parsed; the expression lexer sees blanks in its place
            lexed = src[:head.end()] + " " * (eq - head.end()) + src[eq:text_end]

    toks = tokenize(lexed, base)
    p = Parser(toks)
    t = p.tok
    if t.kind == "IDENT" and t.text == "assert":
        if p.toks[1].kind == "OP" and p.toks[1].text == "=":
            raise LangError("`assert` is a keyword", t.start)
        p.advance()
        if p.tok.kind == "EOF":
            raise LangError("assert needs an expression", t.start)
        expr = p.expression()
        _expect_end(p)
        return Assert(start, end, source, expr)
    if t.kind == "IDENT" and t.text == "precision" and p.toks[1].kind == "OP" and p.toks[1].text == "=":
        raise LangError("`precision` is a keyword — write `precision 2`, not `precision = 2`", t.start)
    param = False
    if t.kind == "IDENT" and t.text == "param" and p.toks[1].kind == "STR":
        # `param` before a quoted name is the keyword (scenario-params spec §2), and refused (§4.1)
        raise LangError("a param name must be an identifier, not a quoted header", p.toks[1].start)
    if t.kind == "IDENT" and t.text == "param" and p.toks[1].kind in ("IDENT",) and p.toks[1].text not in RESERVED:
        param = True
        p.advance()
        t = p.tok
    if t.kind == "STR":
        p.advance()
        if p.tok.kind == "IDENT" and p.tok.text == "is":
            p.advance()
            sym = p.tok
            if sym.kind != "IDENT":
                raise LangError("expected an identifier after `is`", sym.start)
            if sym.text in RESERVED or sym.text in WORD_OPERATORS or sym.text in BOOLEAN_WORDS:
                raise LangError(f"`{sym.text}` is a keyword and cannot be an alias", sym.start, "DUP")
            p.advance()
            if p.tok.kind == "IDENT" and p.tok.text == "precision":
                raise LangError("a `precision` clause does not belong on an `is` line", p.tok.start)
            _expect_end(p)
            return Alias(start, end, source, t.text, sym.text, (sym.start, sym.end))
        return _binding_rest(p, start, end, source, t, quoted=True, param=param, clause=clause)
    if t.kind == "IDENT":
        if t.text in RESERVED:
            raise LangError(f"`{t.text}` is a keyword", t.start)
        if t.text in BOOLEAN_WORDS:
            raise LangError(NO_BOOLEAN_LITERALS, t.start)
        p.advance()
        return _binding_rest(p, start, end, source, t, quoted=False, param=param, clause=clause)
    raise LangError("expected a binding `name = expression`", t.start)


def _comment_start(src: str) -> int:
    """Offset of a trailing ` #` comment outside strings, or len(src)."""
    in_str = False
    for i, ch in enumerate(src):
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str and (i == 0 or src[i - 1] in " \t"):
            return i
    return len(src)


def _binding_rest(p: Parser, start: int, end: int, source: str, head: Token, quoted: bool, param: bool,
                  clause: Clause | None = None) -> Binding:
    b = Binding(start, end, source, head.text, (head.start, head.end), Num(0, 0, Decimal(0), 0), quoted=quoted)
    if p.tok.kind == "BRACKET":
        br = p.advance()
        b.unit_text = br.text
        b.unit_span = (br.start, br.end)
        try:
            b.unit = parse_unit(br.text)
        except UnitSyntaxError as e:
            raise LangError(str(e), br.start, "UNIT") from None
    if p.tok.kind == "IDENT" and p.tok.text == "precision":
        p.advance()
        n = p.tok
        if n.kind != "NUM" or n.value or "." in n.text:
            raise LangError("`precision` takes a whole number from 0 to 18", n.start)
        if int(n.text) > 18:
            raise LangError(f"precision {n.text} is out of range: 0 to 18", n.start)
        p.advance()
        b.precision = int(n.text)
        if p.tok.kind == "IDENT" and p.tok.text == "precision":
            raise LangError("a binding takes one `precision` clause", p.tok.start)
        if p.tok.kind == "BRACKET":
            raise LangError("the unit comes before precision: name [unit] precision N", p.tok.start)
    info: Param | None = None
    if param:
        info = Param(default_text="", clause=clause or Clause())
    if not (p.tok.kind == "OP" and p.tok.text == "="):
        if p.tok.kind == "OP" and p.tok.text == "==":
            raise LangError("a binding uses `=`; `==` compares", p.tok.start)
        raise LangError("expected `=` after the name", p.tok.start)
    p.advance()
    if param:
        assert info is not None
        if p.tok.kind == "IDENT" and p.tok.text == "default":
            p.advance()
        else:
            raise LangError("expected `default` after `=` in a param", p.tok.start)
        lit_start = p.tok.start
        expr = p.expression()
        if not (isinstance(expr, Num) or (isinstance(expr, Unary) and isinstance(expr.operand, Num))):
            raise LangError("a param default must be a number literal", lit_start)
        inner = expr.operand if isinstance(expr, Unary) else expr
        assert isinstance(inner, Num)
        if inner.unit is not None:
            raise LangError("a param's unit is declared on its head", lit_start, "UNIT")
        info.percent = inner.percent
        info.default_text = _source_of(p, lit_start, expr.end)
        b.param = info
    else:
        expr = p.expression()
        if p.tok.kind == "IDENT" and p.tok.text == "precision":
            raise LangError(_misplaced_precision(p, b, source, start, expr), p.tok.start)
    _expect_end(p)
    b.expr = expr
    return b


def _misplaced_precision(p: Parser, b: Binding, source: str, start: int, expr: Node) -> str:
    """``x = a / b precision 2``: the clause after the expression.  The message keeps the
    parser's words and shows the binding as it must be written."""
    at = p.pos
    places = p.toks[at + 1].text if p.toks[at + 1].kind == "NUM" else "N"
    if b.precision is not None:
        return "unexpected ident: a binding takes one `precision` clause, before the `=`"
    head = f'"{b.name}"' if b.quoted else b.name
    unit = f" [{b.unit_text}]" if b.unit_text is not None else ""
    formula = source[expr.start - start:p.tok.start - start].strip()
    return (f"unexpected ident: `precision` goes before the `=` (name [unit] precision N = expression): "
            f"write `{head}{unit} precision {places} = {formula}`")


def _source_of(p: Parser, start: int, end: int) -> str:
    parts = [t.text + ("%" if t.kind == "NUM" and t.value else "") for t in p.toks if start <= t.start < end]
    return "".join(parts)


def _unit_definition(src: str, base: int, start: int, end: int, source: str) -> UnitDef:
    m = re.match(r"\s*\[([^\]]*)\]\s*=\s*\[([^\]]*)\]\s*(#.*)?$", src)
    if not m:
        raise LangError("a unit definition is written `[J] = [N⋅m]`", start, "UNIT")
    left, right = m.group(1).strip(), m.group(2)
    if not re.fullmatch(r"°?[^\W\d_]+|℃|℉", left):
        raise LangError("a definition defines one atom", start, "UNIT")
    try:
        rmap = parse_unit(right)
    except UnitSyntaxError as e:
        if "declares no unit" in str(e):
            raise LangError("a unit cannot be defined as dimensionless", start, "UNIT") from None
        raise LangError(str(e), start, "UNIT") from None
    a0 = base + m.start(1)
    return UnitDef(start, end, source, left, rmap, (a0, a0 + len(m.group(1))))
