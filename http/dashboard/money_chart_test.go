package dashboard

import (
	"bytes"
	"encoding/xml"
	"html/template"
	"strings"
	"testing"
)

// renderChart writes c through the usage page's chart template.
func renderChart(t *testing.T, c chart) string {
	t.Helper()
	var b bytes.Buffer
	if err := pages["money_usage"].ExecuteTemplate(&b, "moneychart", c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wellFormed requires the chart's <svg> to be well-formed XML with a title
// and a description it is labelled by.
func wellFormed(t *testing.T, html string) {
	t.Helper()
	i, j := strings.Index(html, "<svg"), strings.Index(html, "</svg>")
	if i < 0 || j < 0 {
		t.Fatalf("no svg: %s", html)
	}
	d := xml.NewDecoder(strings.NewReader(html[i : j+6]))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("the svg is not well-formed: %v\n%s", err, html[i:j+6])
			}
			break
		}
	}
	for _, s := range []string{`role="img"`, `aria-labelledby="c-title c-desc"`, `<title id="c-title">`, `<desc id="c-desc">`} {
		if !strings.Contains(html, s) {
			t.Errorf("the svg lacks %s", s)
		}
	}
}

func TestColumnChartEmpty(t *testing.T) {
	for _, points := range [][]point{nil, {{"1 Jan", 0}, {"2 Jan", 0}}} {
		c := columnChart("c", "Credits", "Columns.", points)
		if !c.Empty || len(c.Bars) != 0 {
			t.Errorf("%v: %+v", points, c)
		}
		if html := renderChart(t, c); strings.Contains(html, "<svg") || !strings.Contains(html, "No credits were spent") {
			t.Errorf("an empty chart renders %s", html)
		}
	}
	if c := barChart("c", "T", "D", nil); !c.Empty || c.Height != 0 {
		t.Errorf("an empty bar chart: %+v", c)
	}
}

func TestColumnChartOnePoint(t *testing.T) {
	c := columnChart("c", "Credits per day", "Columns <of> credits.", []point{{"25 Nov", 270}})
	if c.Empty || len(c.Bars) != 1 {
		t.Fatalf("%+v", c)
	}
	b := c.Bars[0]
	// 270 on a scale to 500: 54% of the plot's height, standing on its base
	plotH := float64(colHeight - colTop - colBottom)
	if got := b.H / plotH; got < 0.53 || got > 0.55 || b.Y+b.H != colTop+plotH {
		t.Errorf("the bar %+v (%.2f of the height)", b, got)
	}
	if b.X < colLeft || b.X+b.W > colWidth || !b.ShowLabel || b.Value != "270" || b.Tip != "25 Nov: 270 credits" {
		t.Errorf("the bar %+v", b)
	}
	if len(c.Grid) != 3 || c.Grid[2].Label != "500" || c.Grid[0].Label != "0" {
		t.Errorf("the grid %+v", c.Grid)
	}
	html := renderChart(t, c)
	wellFormed(t, html)
	if !strings.Contains(html, "Columns &lt;of&gt; credits.") || !strings.Contains(html, "<title>25 Nov: 270 credits</title>") {
		t.Errorf("the chart: %s", html)
	}
}

func TestColumnChartManyPoints(t *testing.T) {
	var points []point
	for i := range 90 {
		points = append(points, point{template.HTMLEscapeString("d" + formatInt(int64(i))), int64(i * 1000)})
	}
	c := columnChart("c", "Credits", "Columns.", points)
	if len(c.Bars) != 90 {
		t.Fatalf("%d bars", len(c.Bars))
	}
	labels := 0
	for i, b := range c.Bars {
		if b.ShowLabel {
			labels++
		}
		if i > 0 && (b.X <= c.Bars[i-1].X || b.H < c.Bars[i-1].H) {
			t.Errorf("bar %d %+v after %+v", i, b, c.Bars[i-1])
		}
		if b.X+b.W > colWidth+0.1 || b.W <= 0 {
			t.Errorf("bar %d out of the plot: %+v", i, b)
		}
	}
	if labels > maxColLabels || labels < maxColLabels/2 {
		t.Errorf("%d of 90 buckets are labelled", labels)
	}
	if top := c.Bars[89]; top.Y < colTop || c.Grid[2].Label != "100,000" {
		t.Errorf("the highest bar %+v, the grid %+v", top, c.Grid)
	}
	wellFormed(t, renderChart(t, c))
}

func TestBarChart(t *testing.T) {
	c := barChart("c", "By task type", "Bars.", []point{{"Process improvement plan for the whole team", 900}, {"Blog post", 300}, {"None", 0}})
	if c.Empty || len(c.Bars) != 3 || c.Height != barRow*3+8 {
		t.Fatalf("%+v", c)
	}
	if c.Bars[0].W <= c.Bars[1].W || c.Bars[1].W <= c.Bars[2].W || c.Bars[2].W != 1 {
		t.Errorf("widths %v %v %v", c.Bars[0].W, c.Bars[1].W, c.Bars[2].W)
	}
	if l := c.Bars[0].Label; len([]rune(l)) != 24 || !strings.HasSuffix(l, "…") {
		t.Errorf("a long label reads %q", l)
	}
	if c.Bars[0].X+c.Bars[0].W+90 > barWidth+0.1 || c.Bars[0].ValueX <= c.Bars[0].X+c.Bars[0].W {
		t.Errorf("the longest bar %+v leaves no room for its value", c.Bars[0])
	}
	wellFormed(t, renderChart(t, c))
}

func TestNiceCeilAndUSD(t *testing.T) {
	for n, want := range map[int64]int64{1: 2, 2: 2, 3: 5, 7: 10, 10: 10, 11: 20, 270: 500, 501: 1000, 99_999: 100_000} {
		if got := niceCeil(n); got != want {
			t.Errorf("niceCeil(%d) = %d, want %d", n, got, want)
		}
	}
	for usd, want := range map[float64]string{0: "$0.00", 0.27: "$0.27", 1234.5: "$1,234.50", -2.005: "-$2.00"} {
		if got := formatUSD(usd); got != want && !(usd == -2.005 && got == "-$2.01") {
			t.Errorf("formatUSD(%v) = %q, want %q", usd, got, want)
		}
	}
}
