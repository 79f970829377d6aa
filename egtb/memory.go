package egtb

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// MachineMemory returns the machine's memory in bytes, as the kernel
// reports it in /proc/meminfo, or 0 where it cannot tell.
func MachineMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// MemTotal:       24598752 kB
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
