// Package diffcheck turns a patch's unified diff into a ChangeSet: files,
// hunks with old/new line numbers, and the old and new text of every C
// function the patch touches (from the hunks alone, or from a tree with the
// patch applied in memory).
package diffcheck

import "github.com/bluekeyes/go-gitdiff/gitdiff"

// Op is the kind of a diff line.
type Op byte

const (
	// OpContext is an unchanged line (' ').
	OpContext Op = ' '
	// OpAdd is an added line ('+').
	OpAdd Op = '+'
	// OpDel is a removed line ('-').
	OpDel Op = '-'
)

// Line is one line of a hunk.
type Line struct {
	Op Op `json:"op"`
	// Text is the line without its op character and newline.
	Text string `json:"text"`
	// OldLine and NewLine are 1-based line numbers in the old and new file;
	// 0 on the side where the line does not exist.
	OldLine int `json:"old_line,omitempty"`
	NewLine int `json:"new_line,omitempty"`
	// DiffLine is the 1-based line of the diff text this line came from.
	DiffLine int `json:"diff_line,omitempty"`
	// NoEOL is set when the line has no newline at the end of the file
	// ("\ No newline at end of file" followed it).
	NoEOL bool `json:"no_eol,omitempty"`
}

// Hunk is one @@ section of a file diff.
type Hunk struct {
	OldStart int `json:"old_start"`
	OldLines int `json:"old_lines"`
	NewStart int `json:"new_start"`
	NewLines int `json:"new_lines"`
	// Section is the function context git prints after the second @@.
	Section string `json:"section,omitempty"`
	// Funcs are the C functions whose bodies the hunk's changed lines fall
	// in (from the tree when available, else from Section and the hunk text).
	Funcs []string `json:"funcs,omitempty"`
	Lines []Line   `json:"lines"`
	// DiffLine is the 1-based line of the "@@" header in the diff text.
	DiffLine int `json:"diff_line,omitempty"`
	// Offset is set by ApplyTree: how many lines away from OldStart the
	// hunk applied (line numbers are then rewritten to the tree's).
	Offset int `json:"offset,omitempty"`
	// Applied is set by ApplyTree when the hunk applied to the tree.
	Applied bool `json:"applied,omitempty"`

	frag *gitdiff.TextFragment
}

// FileChange is the diff of one file.
type FileChange struct {
	OldPath  string  `json:"old_path,omitempty"`
	NewPath  string  `json:"new_path,omitempty"`
	IsNew    bool    `json:"is_new,omitempty"`
	IsDelete bool    `json:"is_delete,omitempty"`
	IsRename bool    `json:"is_rename,omitempty"`
	IsBinary bool    `json:"is_binary,omitempty"`
	OldMode  uint32  `json:"old_mode,omitempty"`
	NewMode  uint32  `json:"new_mode,omitempty"`
	Hunks    []*Hunk `json:"hunks,omitempty"`
	// IsCopy marks a "copy from/copy to" file diff.
	IsCopy bool `json:"is_copy,omitempty"`
	// HasBinaryData is set for a binary diff carrying "GIT binary patch"
	// data (as opposed to "Binary files ... differ").
	HasBinaryData bool `json:"has_binary_data,omitempty"`
	// OldOID and NewOID are the (abbreviated) blob ids of the "index" line.
	OldOID string `json:"old_oid,omitempty"`
	NewOID string `json:"new_oid,omitempty"`

	file *gitdiff.File
	// restored names the hunks (and tree lines) whose white space
	// ApplyTree took from the tree.
	restored []string
}

// Path returns the new path, or the old one for a deletion.
func (f *FileChange) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Side is one version (old or new) of a function's source, possibly partial.
type Side struct {
	// Text is the source, lines joined with "\n". Empty when the function
	// does not exist on this side (added or deleted function).
	Text string `json:"-"`
	// Lines[i] is the 1-based file line number of line i of Text.
	Lines []int `json:"-"`
	// Changed[i] reports whether line i of Text is added (new side) or
	// removed (old side) by the patch.
	Changed []bool `json:"-"`
	// Partial is set when Text holds only the lines the hunks show (no tree);
	// gaps appear as jumps in Lines.
	Partial bool `json:"partial,omitempty"`
}

// FuncChange is one C function touched by a patch.
type FuncChange struct {
	// File is the path of the file (new path).
	File string `json:"file"`
	// Name is the function name.
	Name string `json:"name"`
	// Old and New are the function before and after the patch.
	Old Side `json:"old"`
	New Side `json:"new"`
	// Preimage is, for a function of a file whose hunks did not apply to
	// the tree, the hunks' pre-image (Partial): the counterpart of New,
	// which is their post-image, while Old is the tree's version. Empty
	// otherwise.
	Preimage Side `json:"-"`
	// Added and Deleted mark a function the patch creates or removes.
	Added   bool `json:"added,omitempty"`
	Deleted bool `json:"deleted,omitempty"`
}

// ID returns "file:func", the form reports use.
func (f *FuncChange) ID() string { return f.File + ":" + f.Name }

// ChangeSet is everything diffcheck knows about one patch.
type ChangeSet struct {
	// Files are the per-file diffs in patch order.
	Files []*FileChange `json:"files"`
	// Funcs are the touched C functions, in patch order.
	Funcs []*FuncChange `json:"funcs"`
	// Tree is the post-patch view of a kernel tree, nil in patch-only mode.
	Tree Tree `json:"-"`
	// ApplyError is set when a tree was given but the patch did not apply
	// cleanly to it; hunks' post-images were used where the tree lacked them.
	ApplyError string `json:"apply_error,omitempty"`
	// ApplyErrors are the individual apply failures behind ApplyError, each
	// naming the diff line (whitespace damage, context not in the tree).
	ApplyErrors []*Error `json:"-"`
	// Recovered is set when the diff was repaired from mail-client damage
	// (wrapped lines, tabs turned into spaces) before it was parsed, or
	// when ApplyTree restored its white space from the tree.
	Recovered bool `json:"recovered,omitempty"`
	// Notes say what was repaired, for the report.
	Notes []string `json:"notes,omitempty"`
}

// Tree is a read-only view of a source tree.
type Tree interface {
	// ReadFile returns the file at the repository-relative path.
	ReadFile(path string) ([]byte, error)
	// Root is the tree's directory (or a description for in-memory trees).
	Root() string
}
