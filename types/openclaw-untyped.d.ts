// Modules of the pinned openclaw package that ship no type declarations (the type check reads
// the others from tests/node_modules/openclaw; see tsconfig.json).

/** The host's transcript reader for SQLite transcripts (js/openclaw/transcript.js uses it). */
declare module "openclaw/plugin-sdk/session-transcript-runtime";
