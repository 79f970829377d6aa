// Command endodoi plays, analyses and checks En Dodoi, the two-row
// relay-sowing mancala of the Loitha and Kisonga Maasai. Run 'endodoi help'
// for its commands.
package main

import (
	"context"
	"os"

	"github.com/endodoi/endodoi/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}
