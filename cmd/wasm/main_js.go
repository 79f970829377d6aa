//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/endodoi/endodoi/internal/clock"
)

// main offers the handler to JavaScript as endodoi.call(request): the
// request and its answer are JSON texts. A call runs to its end before it
// returns (a search included), so the module belongs in a Web Worker.
func main() {
	h := newHandler(clock.Real)
	call := js.FuncOf(func(_ js.Value, args []js.Value) (answer any) {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return `{"error":"endodoi.call takes one JSON text"}`
		}
		// A panic would end the program, and every later call with it.
		defer func() {
			if v := recover(); v != nil {
				answer = string(errorJSON(fmt.Errorf("internal error: %v", v)))
			}
		}()
		return string(h.handle(context.Background(), []byte(args[0].String())))
	})
	js.Global().Set("endodoi", js.ValueOf(map[string]any{"call": call}))
	select {} // keep the functions alive for the page's whole life
}
