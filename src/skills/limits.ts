// What one skill may hold, checked the same way for a JSON body and for a zip.

export const MAX_SKILL_FILES = 100;
export const MAX_SKILL_BYTES = 5 * 1024 * 1024;
/** A zip upload itself (its entries are held to MAX_SKILL_BYTES unpacked, counted as they inflate). */
export const MAX_ZIP_BYTES = 5 * 1024 * 1024;
export const MAX_PATH_LENGTH = 500;
export const SKILL_MD = "SKILL.md";
