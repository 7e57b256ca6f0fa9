/** GET /health's port: whether the database answers. */
export interface HealthProbe {
  databaseAnswers(): Promise<boolean>;
}
