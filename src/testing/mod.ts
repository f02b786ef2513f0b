/**
 * Test doubles for code built on `@bub/core`.
 *
 * @module
 */
export { ScriptedModel, type ScriptedReply } from "./scripted_model.ts";
