/**
 * @file visibility.h
 * @brief Symbol export macro for the public lincoll API.
 */
#ifndef LINCOLL_VISIBILITY_H
#define LINCOLL_VISIBILITY_H

/** Marks a function as part of the exported lincoll ABI. */
#define LINCOLL_API __attribute__((visibility("default")))

#endif
