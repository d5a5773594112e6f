/** Emulator routes for reactions. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
