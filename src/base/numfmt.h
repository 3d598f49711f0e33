/*
 * numfmt.h - a double as the shortest text that reads back to it.
 *
 * Machine-read outputs (JSON, CSV exports, the plots' data attributes)
 * print doubles with this: %.17g shows noise (14.499000000000001) and
 * %.15g loses digits, while the shortest round-trip form is both exact
 * and what a person expects (14.499, 0.05).
 */
#ifndef GT_NUMFMT_H
#define GT_NUMFMT_H

/* Longest text gt_fmt_double writes, with its NUL: a sign, 17 digits, a
 * point, "e-308" and room to spare. */
#define GT_FMT_DOUBLE_SIZE 32

/* v in buf as the correctly rounded decimal of the fewest significant
 * digits P (1..17) that strtod reads back to exactly v (the digits of
 * the smallest P whose %.Pg round-trips), laid out as %.17g lays a number
 * out: fixed notation for exponents -4..16, else d.ddde+XX; trailing
 * zeros dropped.  14.499 -> "14.499", 0.1 -> "0.1", 1e300 -> "1e+300",
 * -0.0 -> "-0"; NaN -> "nan", infinities "inf" / "-inf" (callers that
 * cannot print those test isfinite first).  Returns the text's length. */
int gt_fmt_double(char buf[GT_FMT_DOUBLE_SIZE], double v);

#endif
