package runner

// maxBuildErrorLines caps the build error lines a VM report carries.
const maxBuildErrorLines = 20
