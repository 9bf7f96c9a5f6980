// Package sumstore is the stored summaries of the lock-context engine
// (package lockctx) and their invalidation. Prepare has the engine
// summarise every function of a tree once and writes the summaries
// beside the tree's index, each with what it was computed from (the
// functions it looked up, the struct members and definitions it read)
// and the functions computed from it (reverse deps). A patch's View then
// decides which stored summaries still hold under the patch (Settle):
// it climbs the reverse deps from what the patch changes, having the
// engine summarise again only as far as summaries change.
//
// The engine is behind a small interface (Engine: summarise a function
// in the view, forget a memoised summary); this package imports package
// summary for the values and never lockctx.
//
// The files, by concern:
//   - files.go: the file layout (the side file per model and version, the
//     reverse deps alone, the member index, the registration wrapper
//     rows); prepare.go: Prepare and the Builder collecting the records;
//     resume.go: the partial file a stopped Prepare resumes from;
//     spill.go: the records read back from it instead of held in memory;
//     source.go: Open and the side file read back, with recordcache.go,
//     the decoded records kept within the index's budget; record.go: the
//     record encoding (package wire, the summary by package summary).
//   - view.go: a view's reads, what the engine calls (Stored, Paired,
//     Consult); invalidation.go: what a patch changes and the dirty set
//     (Settle); climb.go: the climb up the reverse deps; overdelete.go:
//     what a change that takes something away dirties; refset.go: the
//     dirty closure as a bit set; renumber.go: stored summaries quoting
//     places the patch moved; unchangedfuncs.go: a rescanned file's
//     unchanged functions keep theirs; structchanges.go: the struct
//     definitions a summary typed with, as a dependency.
package sumstore
