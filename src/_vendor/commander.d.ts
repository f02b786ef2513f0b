// The types of src/_vendor/commander.js (commander, bundled by scripts/build_vendor.ts) are the
// package's own.
export * from "commander";
