// Types of scripts/build.mjs (plain JavaScript: it runs before anything is compiled) for the TypeScript that imports it.
import type { BuildOptions, BuildResult } from 'esbuild';

export const ROOT: string;
export const DIST: string;
export const MANIFEST: string;
export const ENTRIES: Record<string, string>;
export const EXTERNAL: string[];
export function bundleOptions(): BuildOptions & { write: false; metafile: true };
export function ownSourcesOnly(map: { sources: string[]; mappings: string }): { version: 3; sources: string[]; names: string[]; mappings: string };
export function fingerprint(files: string[], root?: string): Record<string, [size: number, mtimeMs: number, sha1: string] | null>;
export function isStale(root?: string): boolean;
export function build(): Promise<BuildResult>;
