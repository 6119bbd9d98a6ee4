/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.c - SVG primitives (sim/svg.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "svg.h"

static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

const char *ns_svg_color (int i)
{
    return palette[(i < 0 ? -i : i) % 10];
}

void ns_svg_begin (FILE *f, const struct ns_svg_doc *d)
{
    if (d->standalone)
        fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf (f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
             "height=\"%.0f\"", d->width, d->height);
    if (d->viewbox)
        fprintf (f, " viewBox=\"0 0 %.0f %.0f\"", d->width, d->height);
    if (d->attrs)
        fprintf (f, " %s", d->attrs);
    fputs (d->standalone ? ">\n" : ">", f);
    if (d->background)
        fprintf (f, "<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>%s",
                 d->background, d->standalone ? "\n" : "");
}

void ns_svg_end (FILE *f)
{
    fputs ("</svg>\n", f);
}

static void escape (FILE *f, const char *s, int quote)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs ("&lt;", f); break;
        case '>': fputs ("&gt;", f); break;
        case '&': fputs ("&amp;", f); break;
        case '"':
            if (quote) {
                fputs ("&quot;", f);
                break;
            }
            /* fall through */
        default: fputc (*s, f);
        }
}

void ns_svg_escape (FILE *f, const char *s)
{
    escape (f, s, 1);
}

void ns_svg_text (FILE *f, double x, double y, const char *anchor,
                  int size, const char *weight, const char *s)
{
    fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
             "font-size=\"%d\" font-weight=\"%s\">", x, y, anchor, size,
             weight);
    escape (f, s, 0);
    fputs ("</text>\n", f);
}

double ns_svg_nice_max (double v)
{
    if (!(v > 0))
        return 1.0;
    double p = pow (10, floor (log10 (v)));
    for (double k = 1; k <= 10; k *= 2) {
        if (k == 4)
            k = 5;
        if (k * p >= v)
            return k * p;
    }
    return 10 * p;
}

void ns_svg_axis_y (FILE *f, const struct ns_svg_panel *p, double vmax,
                    int decimals)
{
    decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    for (int t = 0; t <= 4; t++) {
        double v = vmax * t / 4, y = p->y + p->h - p->h * t / 4;
        char buf[512];      /* %f of any double fits */
        snprintf (buf, sizeof (buf), "%.*f", decimals, v);
        fprintf (f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"#ddd\"/>\n", p->x, y, p->x + p->w, y);
        ns_svg_text (f, p->x - 6, y + 4, "end", 11, "normal", buf);
    }
}

void ns_svg_ref_line (FILE *f, const struct ns_svg_panel *p, double ref,
                      double vmax)
{
    if (ref <= 0 || ref > vmax)
        return;
    double y = p->y + p->h - p->h * ref / vmax;
    fprintf (f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
             "stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n", p->x, y,
             p->x + p->w, y);
}

void ns_svg_polyline (FILE *f, const char *stroke, double width,
                      const double *x, const double *y, int n)
{
    fprintf (f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" "
             "points=\"", stroke, width);
    for (int i = 0; i < n; i++)
        fprintf (f, "%.1f,%.1f ", x[i], y[i]);
    fputs ("\"/>\n", f);
}
