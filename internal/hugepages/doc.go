// Package hugepages allocates the large arrays that are read at random
// places (transposition tables, endgame database values and the working
// arrays that build them) so that the kernel can back them with huge pages
// of 2 MiB instead of pages of 4 KiB. With small pages nearly every access
// to such an array misses the processor's TLB, and the page-table walk that
// follows often misses the cache too; with huge pages a few hundred TLB
// entries cover gigabytes.
//
// On Linux with transparent huge pages in "madvise" mode (or "always"),
// Make aligns the array on 2 MiB and advises MADV_HUGEPAGE before anything
// touches it; elsewhere it is make. Either way the result is an ordinary
// Go slice.
package hugepages
