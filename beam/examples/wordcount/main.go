// Command wordcount counts words with one pipeline that runs on gopar or as
// an Apache Beam job, and prints the most frequent ones.
//
//	go run ./examples/wordcount                 # on gopar, over a generated text
//	go run ./examples/wordcount -runner=prism   # a Beam job, on Prism in this process
//
// Both print the same top words. See README.md for Dataflow and Flink.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gopar-dev/gopar/beam"

	// Every Beam runner (dataflow, flink, spark, ...) and the gs://
	// file system, as Beam programs usually get them.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
)

var (
	input  = flag.String("input", "", "files to read (a glob; gs://... on Dataflow); empty: a generated text")
	output = flag.String("output", "", "write every word's count to this file instead of printing the top words (needed on runners whose workers run elsewhere)")
	lines  = flag.Int("lines", 20000, "lines of the generated text")
	top    = flag.Int("top", 10, "how many words to print")
)

// The steps, declared at package level: a Beam worker runs this binary and
// finds them by name.
var (
	words  = beam.FlatMap("words", splitWords)
	format = beam.FromKV("format", func(w string, n int) string { return fmt.Sprintf("%s\t%d", w, n) })
)

// splitWords returns the words of a line, in lower case, without
// punctuation.
func splitWords(line string) []string {
	return strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
}

func main() {
	flag.Parse()
	beam.Init()
	if err := run(context.Background(), beam.RunnerFromFlags(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run builds the pipeline, runs it on runner and prints the top words to w.
func run(ctx context.Context, runner beam.Runner, w io.Writer) error {
	p := beam.NewPipeline()
	var text beam.Collection[string]
	if *input != "" {
		text = beam.ReadText(p, *input)
	} else {
		text = beam.Create(p, generate(*lines))
	}
	counts := beam.CountPerElement(words.Apply(text))
	var out *beam.Output[beam.KV[string, int]]
	if *output != "" {
		beam.WriteText(format.Apply(counts), *output)
	} else {
		out = beam.CollectKV(counts)
	}

	start := time.Now()
	if err := p.Run(ctx, runner); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "ran on %v in %v\n", runner, time.Since(start).Round(time.Millisecond))
	if out == nil {
		return nil
	}
	all := out.Values()
	// Most frequent first; ties in word order, so that both runners print
	// the same lines.
	slices.SortFunc(all, func(a, b beam.KV[string, int]) int {
		return cmp.Or(cmp.Compare(b.Value, a.Value), cmp.Compare(a.Key, b.Key))
	})
	for _, kv := range all[:min(*top, len(all))] {
		fmt.Fprintf(w, "%s\t%d\n", kv.Key, kv.Value)
	}
	return nil
}

// generate returns n lines drawn from a small vocabulary with a skewed
// frequency, the same lines on every run.
func generate(n int) []string {
	vocab := strings.Fields(`the of and to in is that it for as with was on be by this are
		from at or an which not have has but were can its all their more one also other
		these such than been may into only some used two first most over new time would
		parallel pipeline worker runner bundle shuffle combine element window key value`)
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	out := make([]string, n)
	for i := range out {
		ws := make([]string, 1+r.IntN(14))
		for j := range ws {
			ws[j] = vocab[z.Uint64()]
		}
		out[i] = strings.Join(ws, " ") + "."
	}
	return out
}
