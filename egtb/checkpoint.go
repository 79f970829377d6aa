package egtb

// A search by Solve can take longer than a machine stays up, or than its
// owner can spare at once: its bounding search writes a checkpoint after a
// depth, and a later Solve of the same position over the same databases
// resumes from it. A checkpoint is a folder of two files:
//
//	checkpoint.json  the position, the rules, the databases, the depth
//	                 reached and its bounds, the time and positions spent
//	table.bin        the bounding search's table (its best moves and
//	                 bounds), so that the next depth is searched in the
//	                 order the last one found best
//
// Both are written to temporary files, synced and renamed into place, the
// table first: a stop at any moment leaves the last checkpoint whole. The
// description alone, without the table, resumes cold: the same depth and
// bounds, with an empty table. So does a checkpoint made over databases of
// fewer counts than those read now, the same up to its largest.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/endodoi/endodoi/rules"
)

// Counts describes the databases a search read, a count at a time, by the
// checksum each file's header gives of its values: enough to tell that two
// runs read the same databases.
type Counts struct {
	Holes int `json:"holes"`
	// CRCs is the CRC-32C of each count's values, from 0 seeds up.
	CRCs []uint32 `json:"crcs"`
}

// Counts returns the databases' description. An in-memory Tablebase has
// no files, and no description.
func (tb *Tablebase) Counts() (Counts, error) {
	if tb.dir == "" {
		return Counts{}, errors.New("egtb: databases in memory have no files to describe")
	}
	c := Counts{Holes: tb.holes}
	for n := 0; n <= tb.max; n++ {
		h, err := ReadHeader(filepath.Join(tb.dir, FileName(tb.holes, n, tb.rules)))
		if err != nil {
			return Counts{}, err
		}
		c.CRCs = append(c.CRCs, h.CRC)
	}
	return c, nil
}

// Same reports whether c and d describe the same databases.
func (c Counts) Same(d Counts) bool {
	if c.Holes != d.Holes || len(c.CRCs) != len(d.CRCs) {
		return false
	}
	for i := range c.CRCs {
		if c.CRCs[i] != d.CRCs[i] {
			return false
		}
	}
	return true
}

// Extends reports whether c describes d's databases and possibly more
// counts beyond them: the same holes, and d's counts the first of c's.
func (c Counts) Extends(d Counts) bool {
	return c.Holes == d.Holes && len(c.CRCs) >= len(d.CRCs) && slices.Equal(c.CRCs[:len(d.CRCs)], d.CRCs)
}

// Checkpoint is where a search stood when it last wrote a checkpoint.
type Checkpoint struct {
	Version   int    `json:"version"`
	Position  string `json:"position"`
	Variant   string `json:"variant"`
	MaxLaps   int    `json:"maxLaps"`
	Databases Counts `json:"databases"`
	// Depth is the deepest bounding search finished; Lo and Hi its bounds,
	// for the side to move.
	Depth int `json:"depth"`
	Lo    int `json:"lo"`
	Hi    int `json:"hi"`
	// Nodes and Elapsed add up the bounding searches of every run so far.
	Nodes   uint64        `json:"nodes"`
	Elapsed time.Duration `json:"elapsed"`
	// TableMiB is the size of the table saved beside; TableCRC its
	// checksum, so that a table and a description written by different
	// runs are never taken together.
	TableMiB int    `json:"tableMiB"`
	TableCRC uint32 `json:"tableCRC"`
	// Cold, set by LoadCheckpoint, tells that the folder held the
	// description without its table (kept, say, where the table's
	// gigabytes could not go): the search resumes at the depth and
	// within the bounds reached, with an empty table.
	Cold bool `json:"-"`
	// Deeper, set by LoadCheckpoint, tells that the checkpoint was made
	// over fewer counts than the databases now read (resumed cold).
	Deeper bool `json:"-"`
}

const (
	checkpointVersion = 1
	checkpointFile    = "checkpoint.json"
	tableFile         = "table.bin"
	tableMagic        = "EDODBNDT"
	// maxCheckpointJSON bounds the description read back.
	maxCheckpointJSON = 1 << 20
)

// ErrNoCheckpoint is returned by LoadCheckpoint for a folder without one.
var ErrNoCheckpoint = errors.New("no checkpoint")

// LoadCheckpoint reads the checkpoint in dir and restores its table into
// bd. It returns an error wrapping ErrNoCheckpoint when dir holds none, and
// an error saying what differs when the checkpoint is of another position,
// rules, databases or table size. A checkpoint whose table is missing
// (not damaged) is read without it, and marked Cold.
func LoadCheckpoint(dir string, bd *Bounder) (Checkpoint, error) {
	// A run killed while saving left its temporary files (the table's
	// are gigabytes): the run starting now is the only writer here.
	stale, _ := filepath.Glob(filepath.Join(dir, "*.tmp*"))
	for _, name := range stale {
		os.Remove(name)
	}
	cp, err := readCheckpoint(dir)
	if err != nil {
		return cp, err
	}
	b := &bd.b
	counts, err := b.tb.Counts()
	if err != nil {
		return cp, err
	}
	switch {
	case cp.Position != b.root.String():
		return cp, fmt.Errorf("the checkpoint in %s is of the position %s, not %s", dir, cp.Position, b.root)
	case cp.Variant != b.tb.rules.Variant.String() || cp.MaxLaps != b.tb.rules.Laps():
		return cp, fmt.Errorf("the checkpoint in %s is of the %s rules with a lap cap of %d, not %s", dir, cp.Variant, cp.MaxLaps, b.tb.rules)
	case !counts.Extends(cp.Databases):
		return cp, fmt.Errorf("the checkpoint in %s was made over other databases than those in %s", dir, b.tb.dir)
	case !counts.Same(cp.Databases):
		// Made over fewer counts, the same as these up to its largest:
		// every bound a search proves is a bound on the value itself,
		// whatever databases it read, so the depth and bounds reached
		// hold here too; the table is left, and the search resumes cold
		// over the deeper databases. The next save describes these.
		cp.Cold, cp.Deeper, cp.TableMiB, cp.TableCRC = true, true, b.table.mib, 0
		return cp, nil
	}
	table := filepath.Join(dir, tableFile)
	if _, err := os.Stat(table); errors.Is(err, os.ErrNotExist) {
		// The table only orders the search and saves it work: without
		// it the next depth finds the same bounds, more slowly. A later
		// save writes this run's table and size.
		cp.Cold, cp.TableMiB, cp.TableCRC = true, b.table.mib, 0
		return cp, nil
	}
	if cp.TableMiB != b.table.mib {
		return cp, fmt.Errorf("the checkpoint in %s has a table of %d MiB: resume it with --bounds-table %d", dir, cp.TableMiB, cp.TableMiB)
	}
	if err := b.table.load(table, cp.TableCRC); err != nil {
		return cp, err
	}
	return cp, nil
}

// readCheckpoint reads the description of the checkpoint in dir and checks
// it on its own: this program's version, a position, a depth and bounds
// that fit it.
func readCheckpoint(dir string) (Checkpoint, error) {
	var cp Checkpoint
	f, err := os.Open(filepath.Join(dir, checkpointFile))
	if errors.Is(err, os.ErrNotExist) {
		return cp, fmt.Errorf("%w in %s", ErrNoCheckpoint, dir)
	}
	if err != nil {
		return cp, err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, maxCheckpointJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return cp, fmt.Errorf("reading the checkpoint in %s: %w", dir, err)
	}
	if cp.Version != checkpointVersion {
		return cp, fmt.Errorf("the checkpoint in %s is of version %d; this program reads version %d", dir, cp.Version, checkpointVersion)
	}
	p, err := rules.ParsePosition(cp.Position)
	if err != nil {
		return cp, fmt.Errorf("the checkpoint in %s is damaged: %w", dir, err)
	}
	if cp.Depth < 0 || cp.Lo > cp.Hi || cp.Lo < -p.OnBoard() || cp.Hi > p.OnBoard() {
		return cp, fmt.Errorf("the checkpoint in %s is damaged: depth %d, bounds %d to %d", dir, cp.Depth, cp.Lo, cp.Hi)
	}
	return cp, nil
}

// SaveCheckpoint writes cp, with bd's table, to dir, creating it if need
// be, in place of the checkpoint there.
func SaveCheckpoint(dir string, bd *Bounder, cp Checkpoint) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := &bd.b
	counts, err := b.tb.Counts()
	if err != nil {
		return err
	}
	cp.Version, cp.Position, cp.Databases = checkpointVersion, b.root.String(), counts
	cp.Variant, cp.MaxLaps = b.tb.rules.Variant.String(), b.tb.rules.Laps()
	cp.TableMiB = b.table.mib
	cp.TableCRC, err = b.table.save(filepath.Join(dir, tableFile))
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	return writeSynced(filepath.Join(dir, checkpointFile), func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// writeSynced writes path through write into a temporary file beside it
// (named path.tmp and a random tail, so that two writers never share one),
// syncs it and renames it into place, then syncs the folder as far as the
// system allows. A stop at any moment leaves the old file or the new one,
// whole, and perhaps a temporary file that was never renamed.
func writeSynced(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriterSize(f, 1<<20)
	err = f.Chmod(0o644)
	if err == nil {
		err = write(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() // best effort: not every system syncs folders
		d.Close()
	}
	return nil
}

// bytes returns the table's memory as bytes, to save and load as it is:
// its entries are plain values, written and read back on the same kind of
// machine (the header names the entry size and the byte order's check).
func (t *boundsTable) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.slots))), len(t.slots)*int(unsafe.Sizeof(boundsEntry{})))
}

// header returns the table file's header: the magic, the entry size, the
// number of slots and a number that reads back differently in the other
// byte order.
func (t *boundsTable) header() []byte {
	h := make([]byte, 0, 32)
	h = append(h, tableMagic...)
	h = binary.NativeEndian.AppendUint64(h, uint64(unsafe.Sizeof(boundsEntry{})))
	h = binary.NativeEndian.AppendUint64(h, uint64(len(t.slots)))
	h = binary.NativeEndian.AppendUint64(h, 0x0102030405060708)
	return h
}

// save writes the table to path and returns the CRC-32C of its bytes.
func (t *boundsTable) save(path string) (uint32, error) {
	var sum uint32
	err := writeSynced(path, func(w io.Writer) error {
		if _, err := w.Write(t.header()); err != nil {
			return err
		}
		data := t.bytes()
		for len(data) > 0 {
			n := min(len(data), 64<<20)
			sum = crc32.Update(sum, castagnoli, data[:n])
			if _, err := w.Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	})
	return sum, err
}

// load reads the table at path into t, which must be of the same size,
// and checks its checksum against want.
func (t *boundsTable) load(path string, want uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	h := make([]byte, len(t.header()))
	if _, err := io.ReadFull(r, h); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if string(h) != string(t.header()) {
		return fmt.Errorf("%s is not a table of this size saved on this kind of machine", path)
	}
	data := t.bytes()
	var sum uint32
	for len(data) > 0 {
		n := min(len(data), 64<<20)
		if _, err := io.ReadFull(r, data[:n]); err != nil {
			clear(t.slots)
			return fmt.Errorf("reading %s: %w", path, err)
		}
		sum = crc32.Update(sum, castagnoli, data[:n])
		data = data[n:]
	}
	if extra, _ := r.Read(make([]byte, 1)); extra != 0 || sum != want {
		clear(t.slots)
		return fmt.Errorf("%s is damaged or of another checkpoint (checksum %08x, want %08x)", path, sum, want)
	}
	for i := range t.slots {
		if e := &t.slots[i]; e.used && !e.valid() {
			clear(t.slots)
			return fmt.Errorf("%s is damaged: slot %d holds no position", path, i)
		}
	}
	return nil
}

// valid reports whether a used entry holds what a search could have
// stored: a side, moves and a flag of their ranges.
func (e *boundsEntry) valid() bool {
	okMove := func(m rules.Move) bool { return m == rules.NoMove || m.Side() == e.toMove }
	return (e.toMove == rules.South || e.toMove == rules.North) && okMove(e.move[0]) && okMove(e.move[1]) &&
		e.flag <= flagUpper && e.depth >= 0
}
