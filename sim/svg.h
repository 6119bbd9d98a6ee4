/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.h - the SVG primitives nodeshare's charts are drawn with: the
 * document's opening and closing, text escaped for XML, a text element,
 * the palette, a panel's value axis and reference line, a polyline.
 *
 * Everything writes to a FILE and reports nothing: a caller checks
 * ferror () once at the end.  Numbers are written as the charts always
 * wrote them (coordinates with one decimal), so outputs stay byte for
 * byte what they were.
 */
#ifndef NODESHARE_SVG_H
#define NODESHARE_SVG_H

#include <stdio.h>

/* The opening of an <svg> element. */
struct ns_svg_doc {
    double width, height;       /* written rounded, as pixels */
    int standalone;             /* a .svg file: the XML declaration first,
                                   a newline after each element */
    int viewbox;                /* viewBox="0 0 WIDTH HEIGHT" */
    const char *attrs;          /* more attributes (NULL: none) */
    const char *background;     /* fill of a full-size rectangle drawn
                                   first (NULL: none) */
};

/* "<svg ...>" as d says; a standalone document gets a newline after it
 * (inline, the caller's next element follows on the same line). */
void ns_svg_begin (FILE *f, const struct ns_svg_doc *d);

/* "</svg>\n" */
void ns_svg_end (FILE *f);

/* s with & < > and " as entities: right in text and in attribute
 * values. */
void ns_svg_escape (FILE *f, const char *s);

/* One line "<text x y text-anchor font-size font-weight>S</text>", s
 * escaped (& < >: quotes need none in text). */
void ns_svg_text (FILE *f, double x, double y, const char *anchor,
                  int size, const char *weight, const char *s);

/* The i-th colour of a palette of ten (i >= 0, taken modulo 10). */
const char *ns_svg_color (int i);

/* A chart's area in the document. */
struct ns_svg_panel {
    double x, y, w, h;
};

/* A round axis maximum at least v: 1, 2 or 5 times a power of ten (1 if
 * v is not positive). */
double ns_svg_nice_max (double v);

/* Five grid lines over p at 0, 1/4, ... vmax with their values (decimals
 * after the point) left of it. */
void ns_svg_axis_y (FILE *f, const struct ns_svg_panel *p, double vmax,
                    int decimals);

/* A dashed line across p at value ref of an axis up to vmax; nothing if
 * ref is not in (0, vmax]. */
void ns_svg_ref_line (FILE *f, const struct ns_svg_panel *p, double ref,
                      double vmax);

/* An unfilled polyline through the n points (x[i], y[i]). */
void ns_svg_polyline (FILE *f, const char *stroke, double width,
                      const double *x, const double *y, int n);

#endif /* !NODESHARE_SVG_H */
