#!/usr/bin/env python3
"""tests/browser/domcheck.py -- read a DOM dumped by headless chromium and
list what the report tests check, one item a line, tab-separated:
  chart  ID  MARKS  DRAWN   an <svg data-chart>: its data-marks and how many
                            lines, bars and dots are really drawn inside it
  num    KEY  VALUE  TEXT   a figure: data-key, exact data-value, shown text
  id     ID                 every element id (for presence checks)
Reads the DOM on stdin."""
import sys
from html.parser import HTMLParser


class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.chart = None  # [id, marks, drawn]
        self.num = None  # [key, value, text]
        self.out = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.out.append(("id", a["id"]))
        if tag == "svg" and "data-chart" in a:
            self.chart = [a["data-chart"], a.get("data-marks", "0"), 0]
        elif self.chart is not None:
            drawn = (tag == "polyline" and len(a.get("points", "").split()) > 1) or \
                    (tag == "rect" and "bar" in a.get("class", "").split() and float(a.get("height", 0)) >= 0) or \
                    tag == "circle"
            if drawn:
                self.chart[2] += 1
        if tag == "span" and "data-key" in a:
            self.num = [a["data-key"], a.get("data-value", ""), ""]

    def handle_endtag(self, tag):
        if tag == "svg" and self.chart is not None:
            self.out.append(("chart", *map(str, self.chart)))
            self.chart = None
        if tag == "span" and self.num is not None:
            self.out.append(("num", *self.num))
            self.num = None

    def handle_data(self, data):
        if self.num is not None:
            self.num[2] += data


p = P()
p.feed(sys.stdin.read())
for row in p.out:
    print("\t".join(row))
