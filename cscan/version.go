package cscan

// Version changes whenever the scanner's output for the same input does;
// persisted indexes built by another version are discarded.
const Version = 3
