#!/usr/bin/env python3
"""tests/browser/layout.py FILE.html WIDTH [--print] [--dom OUT] -- does
anything on the page run past the right edge of a WIDTH px wide window?

The report pages carry no script, so a copy of the page with a small one
added is loaded in headless chromium (tests/browser/chromium.sh dom); the
script measures after layout and writes its findings into the DOM, which
chromium prints. Checked: the document and every table (scrollWidth <=
clientWidth), every table cell (its content not cut off), every element
(its right edge within the viewport), and every chart's text (as scaled with
its chart, no larger than the page's text). --print lays the page out with its
print stylesheet (its @media print rules applied to the screen) at WIDTH:
an A4 page less the page margins is 688 px.

--dom OUT also writes the DOM chromium built to OUT (what `chromium.sh dom`
prints, plus the findings' <pre id="aops-layout">), so one browser start
serves both the figure checks and this one.

Prints "height N viewport W" (the page's height, for a full-page
screenshot), then one line per element that overflows; exits 1 when any
does, 2 when the page could not be measured."""
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = r"""<script>
addEventListener('load', function () {
  var de = document.documentElement, vw = de.clientWidth, out = [];
  function name(e) {
    var n = e.tagName.toLowerCase();
    if (e.id) n += '#' + e.id;
    var c = e.closest('[id],[data-chart]');
    if (c && c !== e) n += ' in ' + c.tagName.toLowerCase() + (c.id ? '#' + c.id : '[' + c.getAttribute('data-chart') + ']');
    var t = (e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return n + (t ? ' "' + t + '"' : '');
  }
  if (de.scrollWidth > de.clientWidth)
    out.push('document scrollWidth ' + de.scrollWidth + ' > clientWidth ' + de.clientWidth);
  document.querySelectorAll('table').forEach(function (t) {
    if (t.scrollWidth > t.clientWidth)
      out.push(name(t) + ': scrollWidth ' + t.scrollWidth + ' > clientWidth ' + t.clientWidth);
  });
  document.querySelectorAll('td, th').forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1)
      out.push(name(c) + ': cell content ' + c.scrollWidth + ' wider than the cell ' + c.clientWidth);
  });
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 0.5)
      out.push(name(e) + ': right edge ' + Math.round(r.right) + ' > viewport ' + vw);
  });
  // Chart text as read: its font size scaled with its chart, never larger
  // than the page's own text.
  var body = parseFloat(getComputedStyle(document.body).fontSize);
  document.querySelectorAll('svg text').forEach(function (t) {
    var m = t.getScreenCTM(), px = parseFloat(getComputedStyle(t).fontSize) * (m ? Math.abs(m.a) : 1);
    if (px > body + 0.5)
      out.push(name(t) + ': text set at ' + px.toFixed(1) + ' px, larger than the page text (' + body + ' px)');
  });
  var pre = document.createElement('pre');
  pre.id = 'aops-layout';
  pre.setAttribute('data-width', vw);
  pre.setAttribute('data-height', de.scrollHeight);
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
});
</script>"""


def main():
    argv, dom_out = sys.argv[1:], None
    if "--dom" in argv and argv.index("--dom") + 1 < len(argv):
        i = argv.index("--dom")
        dom_out = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "--print"]
    if len(args) != 2:
        print("usage: layout.py FILE.html WIDTH [--print] [--dom OUT]", file=sys.stderr)
        return 2
    page, width = args[0], int(args[1])
    html = open(page, encoding="utf-8").read()
    if "--print" in sys.argv:
        html = html.replace("@media print", "@media all")
    html = html.replace("</body>", SCRIPT + "</body>", 1)
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.NamedTemporaryFile("w", suffix=".html", encoding="utf-8", delete=False) as f:
        f.write(html)
    try:
        dom = subprocess.run([os.path.join(here, "chromium.sh"), "dom", f.name, str(width)],
                             capture_output=True, text=True, timeout=180).stdout
    finally:
        os.unlink(f.name)
    if dom_out:
        with open(dom_out, "w", encoding="utf-8") as o:
            o.write(dom)
    m = re.search(r'<pre id="aops-layout" data-width="(\d+)" data-height="(\d+)">(.*?)</pre>', dom, re.S)
    if not m:
        print(f"{page}: not measured (chromium printed no layout report)", file=sys.stderr)
        return 2
    # A window of WIDTH px less its vertical scroll bar, as a reader has it.
    if not width - 20 <= int(m.group(1)) <= width:
        print(f"{page}: the window was {m.group(1)} px wide, not {width}", file=sys.stderr)
        return 2
    print("height", m.group(2), "viewport", m.group(1))
    bad = [l for l in m.group(3).split("\n") if l.strip()]
    for l in bad:
        print(l.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&").replace("&quot;", '"'))
    return 1 if bad else 0


sys.exit(main())
