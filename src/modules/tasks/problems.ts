/** A documented problem+json answer, for statuses the OpenAPI plugin does not add by itself. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});
