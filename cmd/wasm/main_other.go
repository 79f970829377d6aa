//go:build !(js && wasm)

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/endodoi/endodoi/internal/clock"
)

// main answers requests read from standard input, one a line, one answer a
// line: the browser build's API, natively.
func main() {
	h := newHandler(clock.Real)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		out.Write(h.handle(context.Background(), in.Bytes()))
		out.WriteByte('\n')
		if err := out.Flush(); err != nil {
			fmt.Fprintf(os.Stderr, "wasm: writing an answer: %v\n", err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "wasm: reading requests: %v\n", err)
		os.Exit(1)
	}
}
