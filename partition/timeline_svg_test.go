package partition

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestWriteSVG(t *testing.T) {
	hand := Timeline{
		Elapsed: 100 * time.Microsecond,
		Lanes: []Lane{
			{Name: "caller", Blocks: []Block{{0, 4, 0, 10 * time.Microsecond}, {4, 8, 10 * time.Microsecond, 50 * time.Microsecond}}},
			{Name: "worker <1>", Blocks: []Block{{8, 10, 60 * time.Microsecond, 90 * time.Microsecond}}},
		},
		Steals: []Steal{{Thief: 1, Victim: 0, Lo: 8, Hi: 10, At: 60 * time.Microsecond}},
	}
	for _, tl := range []*Timeline{&hand, {}} {
		var buf bytes.Buffer
		if err := tl.WriteSVG(&buf); err != nil {
			t.Fatal(err)
		}
		rects, arrows, texts := 0, 0, ""
		d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, buf.String())
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				for _, a := range tok.Attr {
					if a.Name.Local == "marker-end" {
						arrows++
					}
				}
				if tok.Name.Local == "title" {
					rects++
				}
			case xml.CharData:
				texts += string(tok)
			}
		}
		if arrows != len(tl.Steals) {
			t.Errorf("%d arrows for %d steals", arrows, len(tl.Steals))
		}
		blocks := 0
		for _, l := range tl.Lanes {
			blocks += len(l.Blocks)
			if !strings.Contains(texts, l.Name) {
				t.Errorf("the lane name %q is not in the picture", l.Name)
			}
		}
		if titles := rects - arrows; titles < len(tl.Lanes) && blocks > 0 || titles > blocks {
			t.Errorf("%d rectangles for %d blocks on %d lanes", titles, blocks, len(tl.Lanes))
		}
	}
	// The hand-made one: the caller's two blocks follow on, and make one
	// rectangle; the steal's tooltip names both lanes.
	var buf bytes.Buffer
	if err := hand.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[0, 8): 2 blocks", "worker &lt;1&gt; stole [8, 10) from caller at 60µs", "2 lanes, 3 blocks, 1 steals"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	if err := hand.WriteSVG(failingWriter{}); err == nil {
		t.Error("a failing writer gave no error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRoundDuration(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{0, 0},
		{9999, 9999},
		{12345678, 12350000},
		{485058780, 485100000},
	} {
		if got := roundDuration(c.d); got != c.want {
			t.Errorf("roundDuration(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

func TestTickStep(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{1, 1},
		{6, 1},
		{7, 2},
		{30 * time.Millisecond, 5 * time.Millisecond},
		{36 * time.Millisecond, 10 * time.Millisecond},
		{time.Second, 200 * time.Millisecond},
	} {
		if got := tickStep(c.d); got != c.want {
			t.Errorf("tickStep(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}
