/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.t - the SVG primitives (sim/svg.c): escaping in text and in
 * attributes, the document's opening as a file and inline, round axis
 * maxima, the reference line only inside the axis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "tap.h"

/* What f wrote, through an in-memory stream. */
static char *buf;
static size_t len;

static FILE *start (void)
{
    free (buf);
    buf = NULL;
    return open_memstream (&buf, &len);
}

static const char *text (FILE *f)
{
    fclose (f);
    return buf;
}

int main (void)
{
    plan_no_plan ();
    FILE *f = start ();
    ns_svg_escape (f, "a<b & \"c\">");
    is_str (text (f), "a&lt;b &amp; &quot;c&quot;&gt;",
            "ns_svg_escape: & < > and quotes");
    f = start ();
    ns_svg_text (f, 1.25, 2, "end", 11, "bold", "\"x\" & <y>");
    is_str (text (f), "<text x=\"1.2\" y=\"2.0\" text-anchor=\"end\" "
            "font-size=\"11\" font-weight=\"bold\">\"x\" &amp; &lt;y&gt;"
            "</text>\n",
            "ns_svg_text: one decimal, quotes left alone in text");

    f = start ();
    struct ns_svg_doc d = { .width = 1100, .height = 420.4, .standalone = 1,
                            .viewbox = 1, .attrs = "font-family=\"x\"",
                            .background = "white" };
    ns_svg_begin (f, &d);
    ns_svg_end (f);
    is_str (text (f), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1100\" "
            "height=\"420\" viewBox=\"0 0 1100 420\" font-family=\"x\">\n"
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
            "</svg>\n", "ns_svg_begin: a file, with viewBox and background");
    f = start ();
    struct ns_svg_doc inl = { .width = 640, .height = 88 };
    ns_svg_begin (f, &inl);
    is_str (text (f), "<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"640\" height=\"88\">",
            "  inline: no declaration, no newline after it");

    ok (ns_svg_nice_max (0) == 1 && ns_svg_nice_max (-3) == 1,
        "ns_svg_nice_max: not positive gives 1");
    ok (ns_svg_nice_max (3) == 5, "  3 -> 5 (not 4)");
    ok (ns_svg_nice_max (2) == 2, "  2 -> 2 (exactly)");
    ok (ns_svg_nice_max (0.011) == 0.02, "  0.011 -> 0.02");
    ok (ns_svg_nice_max (7) == 10, "  7 -> 10");
    ok (ns_svg_nice_max (1000) == 1000, "  1000 -> 1000");

    struct ns_svg_panel p = { 10, 20, 100, 40 };
    f = start ();
    ns_svg_ref_line (f, &p, 2, 1);
    ns_svg_ref_line (f, &p, 0, 1);
    is_str (text (f), "", "ns_svg_ref_line: nothing outside (0, vmax]");
    f = start ();
    ns_svg_ref_line (f, &p, 1, 2);
    is_str (text (f), "<line x1=\"10.0\" y1=\"40.0\" x2=\"110.0\" "
            "y2=\"40.0\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n",
            "  half way up at ref 1 of 2");
    f = start ();
    ns_svg_axis_y (f, &p, 1, 2);
    const char *a = text (f);
    ok (strstr (a, ">0.00</text>") && strstr (a, ">0.25</text>")
        && strstr (a, ">1.00</text>") && strstr (a, "y1=\"20.0\"")
        && strstr (a, "y1=\"60.0\""),
        "ns_svg_axis_y: 0 at the bottom (y 60), vmax at the top (y 20)");

    double x[] = { 1, 2.25 }, y[] = { 3, 4 };
    f = start ();
    ns_svg_polyline (f, "#000", 1.5, x, y, 2);
    is_str (text (f), "<polyline fill=\"none\" stroke=\"#000\" "
            "stroke-width=\"1.5\" points=\"1.0,3.0 2.2,4.0 \"/>\n",
            "ns_svg_polyline: the points as x,y with one decimal");
    is_str (ns_svg_color (0), "#4e79a7", "ns_svg_color (0)");
    is_str (ns_svg_color (12), ns_svg_color (2), "  cycles after ten");
    free (buf);
    return done_testing ();
}
