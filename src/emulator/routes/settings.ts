/** Emulator routes for settings. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
