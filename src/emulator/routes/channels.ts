/** Emulator routes for channels. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
