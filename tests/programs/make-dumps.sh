#!/usr/bin/env bash
# Placeholder: builds the Go test programs and writes their dumps into $1.
mkdir -p "$1"
