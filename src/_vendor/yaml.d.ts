// The types of src/_vendor/yaml.js (yaml's `parse` and `stringify`, bundled by
// scripts/build_vendor.ts) are the package's own.
export { parse, stringify } from "yaml";
