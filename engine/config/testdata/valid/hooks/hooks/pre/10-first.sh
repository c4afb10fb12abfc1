#!/bin/sh
echo first
