#!/usr/bin/env python3
"""tests/browser/domcheck.py -- read a DOM dumped by headless chromium and
list what the report tests check, one item a line, tab-separated:
  chart  ID  MARKS  DRAWN  ERRBARS  LEGEND
                            an <svg data-chart>: its data-marks, how many
                            lines, bars and dots are really drawn inside it,
                            its error bars, and its legend's words (in the
                            SVG or the figcaption after it), '|'-separated
  num    KEY  VALUE  TEXT   a figure: data-key, exact data-value, shown text
  mark   CHART  KEY  VALUE  a drawn figure: an SVG element with data-key
                            (a bar, a peak tick, a curve's p99 dot)
  path   FULL  SHOWN        a value shortened in the middle: its title, its text
  id     ID                 every element id (for presence checks)
Reads the DOM on stdin."""
import sys
from html.parser import HTMLParser


class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.chart = None  # [id, marks, drawn, errbars, [legend words]]
        self.last_chart = None  # the chart a following figcaption belongs to
        self.num = None  # [key, value, text]
        self.path = None  # [full, shown]
        self.legend = None  # words of a figcaption.legend
        self.text = None  # words of an SVG <text>
        self.out = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.out.append(("id", a["id"]))
        cls = a.get("class", "").split()
        if tag == "svg" and "data-chart" in a:
            self.chart = [a["data-chart"], a.get("data-marks", "0"), 0, 0, []]
        elif self.chart is not None:
            drawn = (tag == "polyline" and len(a.get("points", "").split()) > 1) or \
                    (tag == "rect" and "bar" in cls and float(a.get("height", 0)) >= 0) or \
                    tag == "circle"
            if drawn:
                self.chart[2] += 1
            if "errbar" in cls:
                self.chart[3] += 1
            if "data-key" in a:
                self.out.append(("mark", self.chart[0], a["data-key"], a.get("data-value", "")))
            if tag == "text" and self.chart is not None:
                self.text = ""
        if tag == "figcaption" and "legend" in cls and self.last_chart is not None:
            self.legend = ""
        if tag == "span" and "data-key" in a:
            self.num = [a["data-key"], a.get("data-value", ""), ""]
        if tag == "span" and "path" in cls:
            self.path = [a.get("title", ""), ""]

    def handle_endtag(self, tag):
        if tag == "text" and self.text is not None:
            self.chart[4].append(self.text)
            self.text = None
        if tag == "svg" and self.chart is not None:
            self.last_chart = self.chart
            self.chart = None
        if tag == "figcaption" and self.legend is not None:
            self.last_chart[4].append(self.legend)
            self.legend = None
        if tag == "figure" and self.last_chart is not None:
            c = self.last_chart
            self.out.append(("chart", c[0], c[1], str(c[2]), str(c[3]), "|".join(c[4])))
            self.last_chart = None
        if tag == "span" and self.num is not None:
            self.out.append(("num", *self.num))
            self.num = None
        if tag == "span" and self.path is not None:
            self.out.append(("path", *self.path))
            self.path = None

    def handle_data(self, data):
        if self.num is not None:
            self.num[2] += data
        if self.path is not None:
            self.path[1] += data
        if self.text is not None:
            self.text += data
        if self.legend is not None:
            self.legend += data


p = P()
p.feed(sys.stdin.read())
for row in p.out:
    print("\t".join(row))
