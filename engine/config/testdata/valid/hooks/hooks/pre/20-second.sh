#!/bin/sh
echo second
