#!/bin/sh
echo "$EGGO_NODE_NAME joins"
