// Package wire is the byte encoding shared by the records lockctx stores
// beside the index (the summaries of package summary in the records of
// package sumstore, the struct typing of package typing): unsigned and signed varints, strings as a uvarint length
// and their bytes, booleans as one byte, and string maps with their keys
// sorted, so that equal values encode to equal bytes. A Decoder refuses
// what an Encoder could not have written (a length past the end, a bad
// boolean) by setting Bad.
package wire
