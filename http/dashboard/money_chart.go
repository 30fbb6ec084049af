package dashboard

import (
	"math"
	"strconv"
)

// Charts drawn on the server: a chart is geometry the template writes
// as <svg> (money_charts.html), with a title and a description for
// assistive technology; the page's table holds the same numbers.

// point is a value of a chart: its label (a bucket, a task type) and
// its credits.
type point struct {
	Label string
	Value int64
}

// chart is an SVG bar chart: columns over time, or horizontal bars of a
// breakdown. Empty when no value is above zero (the page says so
// instead of drawing).
type chart struct {
	ID, Title, Desc string
	Width, Height   int
	Horizontal      bool
	Bars            []bar
	Grid            []gridLine
	Empty           bool
}

// bar is one bar's rectangle, its axis label (shown or not: a long
// series labels some buckets only) and its value as text.
type bar struct {
	X, Y, W, H     float64
	LabelX, LabelY float64
	ValueX, ValueY float64
	Label, Value   string
	ShowLabel      bool
	Tip            string
}

// gridLine is a horizontal line of a column chart at a round value.
type gridLine struct {
	Y     float64
	Label string
}

// The plot area of a column chart: left margin for the axis labels,
// bottom margin for the buckets', right margin for the last one's.
const (
	colWidth, colHeight = 720, 240
	colLeft, colBottom  = 64, 28
	colRight            = 40 // room for the last bucket's label
	colTop              = 12
	barRow, barLeft     = 28, 180
	barWidth            = 720
	maxColLabels        = 8
)

// columnChart is a column per point, in order (the trend's buckets).
func columnChart(id, title, desc string, points []point) chart {
	c := chart{ID: id, Title: title, Desc: desc, Width: colWidth, Height: colHeight}
	top := maxOf(points)
	if top <= 0 {
		c.Empty = true
		return c
	}
	scale := niceCeil(top)
	plotW, plotH := float64(colWidth-colLeft-colRight), float64(colHeight-colTop-colBottom)
	for _, f := range []int64{0, scale / 2, scale} {
		c.Grid = append(c.Grid, gridLine{Y: round1(colTop + plotH - plotH*float64(f)/float64(scale)), Label: formatInt(f)})
	}
	step := plotW / float64(len(points))
	every := (len(points) + maxColLabels - 1) / maxColLabels
	for i, p := range points {
		h := plotH * float64(max(p.Value, 0)) / float64(scale)
		x := colLeft + step*float64(i)
		gap := math.Min(step*0.2, 8)
		b := bar{X: round1(x + gap/2), W: round1(math.Max(step-gap, 1)), Y: round1(colTop + plotH - h), H: round1(h),
			Label: p.Label, Value: formatInt(p.Value), ShowLabel: i%every == 0}
		b.LabelX, b.LabelY = round1(x+step/2), colHeight-8
		b.Tip = p.Label + ": " + b.Value + " credits"
		c.Bars = append(c.Bars, b)
	}
	return c
}

// barChart is a horizontal bar per point, labelled on the left and
// valued at the bar's end (a breakdown, largest first as the API sorts
// it).
func barChart(id, title, desc string, points []point) chart {
	c := chart{ID: id, Title: title, Desc: desc, Width: barWidth, Height: barRow*len(points) + 8, Horizontal: true}
	top := maxOf(points)
	if top <= 0 {
		c.Empty, c.Height = true, 0
		return c
	}
	plotW := float64(barWidth - barLeft - 90) // room for the value after the longest bar
	for i, p := range points {
		y := float64(barRow*i + 4)
		w := plotW * float64(max(p.Value, 0)) / float64(top)
		b := bar{X: barLeft, Y: y, W: round1(math.Max(w, 1)), H: barRow - 8, Label: shorten(p.Label, 24), Value: formatInt(p.Value), ShowLabel: true}
		b.LabelX, b.LabelY = barLeft-8, round1(y+float64(barRow-8)/2+5)
		b.ValueX, b.ValueY = round1(barLeft+b.W+6), b.LabelY
		b.Tip = p.Label + ": " + b.Value + " credits"
		c.Bars = append(c.Bars, b)
	}
	return c
}

// shorten cuts s to n characters, with an ellipsis (a chart's label;
// the table beside it has the whole).
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func maxOf(points []point) int64 {
	var top int64
	for _, p := range points {
		top = max(top, p.Value)
	}
	return top
}

// niceCeil is the smallest of 1, 2 or 5 times a power of ten that is at
// least n (and at least 2), so the grid lines fall on round numbers.
func niceCeil(n int64) int64 {
	for pow := int64(1); pow <= math.MaxInt64/10; pow *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*pow >= n {
				return max(m*pow, 2)
			}
		}
	}
	return n
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// svgNum writes a coordinate for an SVG attribute.
func svgNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
