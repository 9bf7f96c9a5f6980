// Package typing infers C struct types over the index, for resolving calls
// through function pointers: which struct a file sees under a tag (in
// itself or what it includes), the struct type of a function's variables
// and parameters, and of member chains (hw->phy.ops). A Typer answers for
// one view of the tree (the post-patch or the pre-patch index) and tells
// its owner every struct definition and member type it read (StructKey,
// MemberKey), which the stored summaries (package sumstore) keep as
// dependencies. The C text layer it reads with is package ctype.
//
// The files:
//   - typer.go: the Typer, its caches and the dependency keys;
//     lines.go: source files by line.
//   - structs.go: a file's struct definitions and includes, a definition
//     found through a caller's includes, member chains, the struct of a
//     call through a member (MemberCallTag).
//   - types.go: the struct visible from a file, expression and
//     declaration types, plainly assigned members typed by their base.
//   - inittag.go: the struct type of a nested designated initializer
//     (".states[1] = { .enter = fn }"), through the designators.
//   - store.go: each file's struct definitions and #include directives,
//     and each function's struct-typed declarations, stored beside the
//     index by Prepare (lockctx.Prepare calls it) so that a patch reads
//     the few records it types through instead of parsing headers.
package typing
