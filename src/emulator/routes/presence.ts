/** Emulator routes for presence. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
