package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Series colours are all different, however many, and never the grey of
// the others' line; the first eight are the Okabe-Ito palette, solid.
func TestSeriesStyles(t *testing.T) {
	styles := seriesStyles(500)
	seen := map[string]bool{othersStyle.colour: true}
	for i, s := range styles {
		require.Regexp(t, `^#[0-9A-F]{6}$`, s.colour)
		require.False(t, seen[s.colour], "style %d: %s twice", i, s.colour)
		seen[s.colour] = true
		require.Equal(t, i >= len(okabeIto), s.dash != "", "style %d", i)
	}
	require.Equal(t, okabeIto, func() []string {
		var out []string
		for _, s := range styles[:8] {
			out = append(out, s.colour)
		}
		return out
	}())
	require.Equal(t, styles[:20], seriesStyles(20)) // the same whatever the count
	require.Equal(t, "#FF0000", hsl(0, 1, 0.5))
	require.Equal(t, "#00FF00", hsl(120, 1, 0.5))
	require.Equal(t, "#0000FF", hsl(240, 1, 0.5))
	require.Equal(t, "#808080", hsl(77, 0, 0.5))
}

// Lines wrap at spaces, and within a word too long for a line; names too
// long are cut short with an ellipsis.
func TestWrapAndTruncate(t *testing.T) {
	for _, text := range []string{"", "short", strings.Repeat("word ", 200), strings.Repeat("x", 500) + " tail", "a " + strings.Repeat("ü", 300)} {
		lines := wrap(text, 300, 12, true)
		require.Equal(t, strings.Join(strings.Fields(text), ""), strings.ReplaceAll(strings.Join(lines, ""), " ", ""), "nothing lost")
		for _, l := range lines {
			require.LessOrEqual(t, textWidth(l, 12, true), 300.0, l)
			require.NotEmpty(t, l)
		}
	}
	require.Equal(t, "short", truncate("short", 100, 11, false))
	long := truncate(strings.Repeat("abc", 100), 100, 11, false)
	require.True(t, strings.HasSuffix(long, "…"))
	require.LessOrEqual(t, textWidth(long, 11, false), 100.0)
	require.Equal(t, "", truncate("anything", 1, 11, false))
	huge := strings.Repeat("x", 100_000) // a name of any length costs a few passes
	require.LessOrEqual(t, textWidth(truncate(huge, 200, 11, false), 11, false), 200.0)
	require.Len(t, wrap(huge, 900, 13, true), 1076) // 93 x to a line: 0.66 em, bold 1.12 times wider
	require.Greater(t, textWidth("MMMM", 11, false), textWidth("iiii", 11, false))
	require.Equal(t, 0.58*11*4, textWidth("iiii", 11, false)) // the floor
}

// Share scales fit the largest share with quarters of few digits; tick
// labels keep one decimal at least.
func TestShareScaleAndTicks(t *testing.T) {
	for top, want := range map[float64]float64{0: 0.02, 0.015: 0.02, 0.03: 0.04, 0.09: 0.1, 0.3: 0.4, 0.45: 0.5, 0.7: 0.8, 1: 1, 1.1: 1.25, 2.6: 2.75} {
		require.Equal(t, want, shareScale(top), "top %g", top)
	}
	for v, want := range map[float64]string{0: "0.0", 0.25: "0.25", 0.5: "0.5", 1: "1.0", 0.005: "0.005", 0.1 + 0.2: "0.3", 0.0125: "0.0125"} {
		require.Equal(t, want, trimFloat(v))
	}
}

// Plots stay at least minPanelWidth wide, as many in a row as fit.
func TestGrid(t *testing.T) {
	for n := 1; n <= 60; n++ {
		cols, width := grid(n)
		require.GreaterOrEqual(t, width, float64(minPanelWidth), "%d plots", n)
		require.LessOrEqual(t, cols, n)
		require.LessOrEqual(t, float64(cols)*width+float64((cols-1)*panelGap), float64(contentWidth)+1e-9)
	}
	cols, _ := grid(0)
	require.Equal(t, 1, cols)
}
