package egtb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/rules"
)

// The file format (docs/egtb.md): one file per board size, rules and seed
// count, a 40-byte header and then one signed byte per position. All
// numbers are little-endian.
//
//	offset size field
//	0      8    magic "EDODEGTB"
//	8      2    format version (1)
//	10     1    holes a row, H
//	11     1    variant (0 standard, 1 cross)
//	12     2    seeds on the board, n
//	14     2    value encoding (0: one int8 per position)
//	16     4    lap cap L
//	20     4    reserved, 0
//	24     8    entries: C(n+2H-1, 2H-1)
//	32     4    CRC-32C (Castagnoli) of the payload
//	36     4    CRC-32C of bytes 0 to 35
//	40     ...  payload: the value of the board of each rank, South to move
const (
	magic         = "EDODEGTB"
	formatVersion = 1
	headerSize    = 40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header describes one database file: the values of every position with
// Seeds seeds on a board of Holes holes a row, under Rules.
type Header struct {
	Holes   int
	Seeds   int
	Rules   rules.Rules
	Entries uint64
	CRC     uint32 // CRC-32C of the payload
}

// ErrCorrupt is wrapped by the errors for a damaged or foreign file.
var ErrCorrupt = errors.New("corrupt database file")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

func (h Header) marshal() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint16(b[8:], formatVersion)
	b[10] = byte(h.Holes)
	b[11] = byte(h.Rules.Variant)
	binary.LittleEndian.PutUint16(b[12:], uint16(h.Seeds))
	binary.LittleEndian.PutUint32(b[16:], uint32(h.Rules.Laps()))
	binary.LittleEndian.PutUint64(b[24:], h.Entries)
	binary.LittleEndian.PutUint32(b[32:], h.CRC)
	binary.LittleEndian.PutUint32(b[36:], crc32.Checksum(b[:36], castagnoli))
	return b
}

// parseHeader reads and checks a header.
func parseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < headerSize {
		return h, corruptf("%d bytes: shorter than the %d-byte header", len(b), headerSize)
	}
	if string(b[:8]) != magic {
		return h, corruptf("not an endodoi database (bad magic)")
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != formatVersion {
		return h, corruptf("format version %d; this program reads version %d", v, formatVersion)
	}
	if got, want := binary.LittleEndian.Uint32(b[36:]), crc32.Checksum(b[:36], castagnoli); got != want {
		return h, corruptf("header checksum %08x, want %08x", got, want)
	}
	h.Holes = int(b[10])
	h.Rules = rules.Rules{Variant: rules.Variant(b[11]), MaxLaps: int(binary.LittleEndian.Uint32(b[16:]))}.Canonical()
	h.Seeds = int(binary.LittleEndian.Uint16(b[12:]))
	h.Entries = binary.LittleEndian.Uint64(b[24:])
	h.CRC = binary.LittleEndian.Uint32(b[32:])
	switch {
	case h.Holes < rules.MinHoles || h.Holes > rules.MaxHoles:
		return h, corruptf("holes %d out of range", h.Holes)
	case h.Seeds > MaxSeeds:
		return h, corruptf("seeds %d out of range (0 to %d)", h.Seeds, MaxSeeds)
	case h.Rules.Validate() != nil || h.Rules.MaxLaps < 1:
		return h, corruptf("invalid rules (variant %d, lap cap %d)", b[11], h.Rules.MaxLaps)
	case binary.LittleEndian.Uint16(b[14:]) != 0 || binary.LittleEndian.Uint32(b[20:]) != 0:
		return h, corruptf("unknown value encoding")
	case h.Entries != Size(h.Holes, h.Seeds):
		return h, corruptf("%d entries; %d seeds on %d holes a row make %d", h.Entries, h.Seeds, h.Holes, Size(h.Holes, h.Seeds))
	}
	return h, nil
}

// decode checks a whole file's bytes and returns its header and values
// (which share data's memory).
func decode(data []byte) (Header, []int8, error) {
	h, err := parseHeader(data)
	if err != nil {
		return h, nil, err
	}
	payload := data[headerSize:]
	if uint64(len(payload)) != h.Entries {
		return h, nil, corruptf("payload of %d bytes, want %d (truncated or padded)", len(payload), h.Entries)
	}
	if got := crc32.Checksum(payload, castagnoli); got != h.CRC {
		return h, nil, corruptf("payload checksum %08x, want %08x", got, h.CRC)
	}
	return h, int8s(payload), nil
}

// FileName returns the name of the database file of n seeds for the given
// board size and rules, e.g. "endodoi-standard-L1000-h6-n012.egtb".
func FileName(holes, n int, r rules.Rules) string {
	return fmt.Sprintf("endodoi-%s-L%d-h%d-n%03d.egtb", r.Variant, r.Laps(), holes, n)
}

// writeFile writes a database file so that a half-written file is never
// taken for a finished one: into a temporary file in the same directory,
// synced, then renamed into place, and the directory synced.
func writeFile(dir string, h Header, values []int8) error {
	payload := bytesOf(values)
	h.Entries = uint64(len(values))
	h.CRC = crc32.Checksum(payload, castagnoli)
	err := writeSynced(filepath.Join(dir, FileName(h.Holes, h.Seeds, h.Rules)), func(w io.Writer) error {
		if _, err := w.Write(h.marshal()); err != nil {
			return err
		}
		_, err := w.Write(payload)
		return err
	})
	if err != nil {
		return fmt.Errorf("egtb: %w", err)
	}
	return nil
}

// WriteFile writes count n's values for the given board size and rules to
// their file in dir, as a build does: safely, through a temporary file.
func WriteFile(dir string, holes, n int, r rules.Rules, values []int8) error {
	if uint64(len(values)) != Size(holes, n) {
		return fmt.Errorf("egtb: %d values for %d seeds on %d holes a row, want %d", len(values), n, holes, Size(holes, n))
	}
	return writeFile(dir, Header{Holes: holes, Seeds: n, Rules: r.Canonical()}, values)
}

// readFile reads and checks a database file, and checks that it holds the
// expected board size, rules and seed count.
func readFile(path string, holes, n int, r rules.Rules) ([]int8, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, fmt.Errorf("egtb: %w", err)
	}
	return checkCount(path, data, holes, n, r)
}

// checkCount checks a database file's bytes, read from path, and that they
// hold the expected board size, rules and seed count, and returns its
// values.
func checkCount(path string, data []byte, holes, n int, r rules.Rules) ([]int8, error) {
	h, values, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("egtb: %s: %w", path, err)
	}
	if h.Holes != holes || h.Seeds != n || h.Rules != r.Canonical() {
		return nil, fmt.Errorf("egtb: %s holds %d seeds on %d holes under %s, not %d seeds on %d holes under %s",
			path, h.Seeds, h.Holes, h.Rules, n, holes, r)
	}
	return values, nil
}

// mapCount maps a database file into memory, read only, checks it as
// readFile does (without the payload's checksum if not verify: a file
// just written, whose pages reading would only bring in) and returns its
// values, which stay mapped for as long as the program runs.
func mapCount(path string, holes, n int, r rules.Rules, verify bool) ([]int8, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("egtb: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("egtb: %w", err)
	}
	data, unmap, err := mapFile(f, uint64(st.Size()))
	if err != nil {
		return nil, fmt.Errorf("egtb: mapping %s: %w", path, err)
	}
	var values []int8
	if verify {
		values, err = checkCount(path, data, holes, n, r)
	} else if h, herr := parseHeader(data); herr != nil {
		err = fmt.Errorf("egtb: %s: %w", path, herr)
	} else if h.Holes != holes || h.Seeds != n || h.Rules != r.Canonical() || uint64(len(data)-headerSize) != h.Entries {
		err = fmt.Errorf("egtb: %s does not hold the %d seeds on %d holes under %s just written", path, n, holes, r)
	} else {
		values = int8s(data[headerSize:])
	}
	if err != nil {
		unmap()
		return nil, err
	}
	return values, nil
}

// loadCount reads a count a build has finished: mapped from its file from
// mapFrom positions up, read into memory below.
func loadCount(path string, holes, n int, r rules.Rules) ([]int8, error) {
	if Size(holes, n) >= mapFrom {
		return mapCount(path, holes, n, r, true)
	}
	return readFile(path, holes, n, r)
}

// readAll reads the file at path into memory on huge pages, where its
// values are probed at random places.
func readAll(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if uint64(st.Size()) > math.MaxInt {
		return nil, fmt.Errorf("%s: %d bytes, too large to read here", path, st.Size())
	}
	data := hugepages.Make[byte](int(st.Size()))
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// ReadHeader reads the header of a database file and checks it (not the
// payload).
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("egtb: %w", err)
	}
	defer f.Close()
	b := make([]byte, headerSize)
	if _, err := io.ReadFull(f, b); err != nil {
		return Header{}, fmt.Errorf("egtb: %s: %w", path, corruptf("reading the header: %v", err))
	}
	h, err := parseHeader(b)
	if err != nil {
		return h, fmt.Errorf("egtb: %s: %w", path, err)
	}
	return h, nil
}

// removeTemps deletes temporary files left by an interrupted write of one
// of the given board's databases.
func removeTemps(dir string, holes int, r rules.Rules) {
	prefix := strings.TrimSuffix(FileName(holes, 0, r), "000.egtb")
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*.egtb.tmp*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// bytesOf and int8s view values as bytes and back without copying.
func bytesOf(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v))
}

func int8s(b []byte) []int8 {
	if len(b) == 0 {
		return []int8{}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}
