/** Emulator routes for subscriptions. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
