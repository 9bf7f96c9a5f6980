// Package ctype reads the C struct types a source text declares, without
// a compiler: the struct definitions of a file and their struct-typed
// members (ParseStructs), its #include directives (IncludeDirectives,
// ResolveIncludes), the struct tags of the names a function declares
// (DeclTags), and member chains such as "hw->phy.ops" (SplitMembers,
// MemberPath).
//
// words.go gives the identifiers a text spells (Words), a filter the sleep
// rule runs before looking at a file.
//
// It is the text layer of the struct typing in rules/lockctx/typing, which
// finds a definition through a caller's includes, caches what it read,
// stores it beside the index and records it as a dependency of the
// stored summaries. scan.go holds hand-written scanners for the patterns
// run over whole headers (a third of a one-shot check --tree went to the
// regular expressions they replace), and declnames.go one for the names a
// function declares (DeclNames, typing's Locals).
package ctype
