package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/endodoi/endodoi/rules"
)

var applyCommand = &command{
	name:    "apply",
	summary: "apply moves to positions: one '<position> <move>' line in, one position line out",
	usage:   "[--variant V] [--max-laps L] < lines",
	examples: []string{
		"echo '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 c' | endodoi apply",
		"endodoi apply --variant cross < moves.txt",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("apply reads standard input and takes no arguments (got %q)", args[0])
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			return applyLines(ctx, env.Stdin, env.Stdout, r)
		}
	},
}

// maxApplyLine bounds one input line; longer lines are answered with an
// error line and skipped.
const maxApplyLine = 64 << 10

// applyLines answers every input line with exactly one output line: the
// position after the move, or "illegal: <reason>".
func applyLines(ctx context.Context, in io.Reader, out io.Writer, r rules.Rules) error {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, tooLong, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		buf = buf[:0]
		if tooLong {
			buf = append(buf, "illegal: line longer than 64 KiB"...)
		} else {
			buf = applyLine(buf, line, r)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// readLine returns the next line without its line ending. A line longer
// than maxApplyLine is consumed and reported as too long.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err == io.EOF {
			err = nil
		}
		return nil, true, err
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	return bytes.TrimRight(line, "\r\n"), false, err
}

// applyLine appends the answer to one '<position> <move>' line to dst.
func applyLine(dst, line []byte, r rules.Rules) []byte {
	line = bytes.TrimSpace(line)
	cut := bytes.LastIndexByte(line, ' ')
	if cut < 0 {
		if len(line) == 0 {
			return append(dst, "illegal: empty line: want '<position> <move>'"...)
		}
		return append(dst, "illegal: malformed line: want '<position> <move>'"...)
	}
	p, err := rules.ParsePosition(string(bytes.TrimRight(line[:cut], " ")))
	if err != nil {
		return append(append(dst, "illegal: malformed "...), err.Error()...)
	}
	m, err := rules.ParseMove(string(line[cut+1:]))
	if err != nil {
		return append(append(dst, "illegal: malformed "...), err.Error()...)
	}
	q, err := p.Play(m, r)
	if err != nil {
		return append(append(dst, "illegal: "...), rules.DescribeMoveError(p, m, err)...)
	}
	return q.AppendText(dst)
}
