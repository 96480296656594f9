"""The promotion table written with the suite (extra_files): the common type of every pair of the spec's types."""

from __future__ import annotations

from generator.reference import convert_promote_types as ref

ERROR_MARKS = {ref.ERR_WIDENING: "W", ref.ERR_INT_TO_FLOAT: "F", ref.ERR_U64_SIGNED: "U", ref.ERR_LOWER_RANGE: "R"}


def promotion_table() -> str:
    """Markdown: the common type of every pair, safe and unsafe, without and with pytorch_scalar_promotion."""
    types = ref.spec_types()
    names = [ref.element_name(t) for t in types]
    lines = ["# ConvertPromoteTypes-14: common types", "",
             f"Written by gen-cases from generator/reference/convert_promote_types.py ({ref.SPEC_FILE}).",
             "Rows: input_0, columns: input_1 (the table is symmetric: the rules do not depend on order).",
             f"u64_integer_promotion_target = {ref.DEFAULT_TARGET}. Errors (promote_unsafe = false): "
             + "; ".join(f"**{mark}** {reason}" for reason, mark in ERROR_MARKS.items()) + ".", ""]
    tables = [("both inputs dimensioned (or both scalars, or pytorch_scalar_promotion = false)", (1, 1), False),
              ("pytorch_scalar_promotion = true, input_0 a scalar, input_1 dimensioned", (0, 1), True)]
    for title, ranks, pytorch in tables:
        for unsafe in (False, True):
            lines += [f"## promote_unsafe = {str(unsafe).lower()}; {title}", "",
                      "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
            for t0, n0 in zip(types, names):
                cells = []
                for t1 in types:
                    d = ref.decide(t0, t1, *ranks, promote_unsafe=unsafe, pytorch_scalar_promotion=pytorch)
                    cells.append(ref.element_name(d.common) if d.common else f"**{ERROR_MARKS[d.error]}**")
                lines.append(f"| **{n0}** | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines)


TABLE_PATH = "tables/convert_promote_types.md"
