package rules

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxApplyLine bounds one line read by ApplyLines; a longer line is
// answered "illegal: line longer than 64 KiB" and skipped.
const MaxApplyLine = 64 << 10

// ApplyLines reads lines "<position> <move>" from in, the notation of the
// test vectors in testdata, and answers each with exactly one line on out:
// the position after the move under r, or "illegal: <reason>" (ApplyLine).
// It lets another implementation of the rules be checked against this one
// line by line, at about a microsecond a line.
func ApplyLines(ctx context.Context, in io.Reader, out io.Writer, r Rules) error {
	br := bufio.NewReaderSize(in, MaxApplyLine)
	bw := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, tooLong, err := readApplyLine(br)
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
			buf = ApplyLine(buf, line, r)
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

// readApplyLine returns the next line without its line ending. A line
// longer than the reader's buffer is consumed and reported as too long.
func readApplyLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
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

// ApplyLine appends to dst the answer to one line "<position> <move>":
// the position after the move under r, in notation, or "illegal: " and
// why: the line is empty or malformed, or the move is not legal
// (DescribeMoveError). The answer never spans lines.
func ApplyLine(dst, line []byte, r Rules) []byte {
	line = bytes.TrimSpace(line)
	cut := bytes.LastIndexByte(line, ' ')
	if cut < 0 {
		if len(line) == 0 {
			return append(dst, "illegal: empty line: want '<position> <move>'"...)
		}
		return append(dst, "illegal: malformed line: want '<position> <move>'"...)
	}
	p, err := ParsePosition(string(bytes.TrimRight(line[:cut], " ")))
	if err != nil {
		return append(append(dst, "illegal: malformed "...), err.Error()...)
	}
	m, err := ParseMove(string(line[cut+1:]))
	if err != nil {
		return append(append(dst, "illegal: malformed "...), err.Error()...)
	}
	q, err := p.Play(m, r)
	if err != nil {
		return append(append(dst, "illegal: "...), DescribeMoveError(p, m, err)...)
	}
	return q.AppendText(dst)
}
